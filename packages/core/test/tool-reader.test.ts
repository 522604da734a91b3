import { describe, expect, it } from 'vitest';
import { ToolReader } from '../src/ranking/tool-reader.js';

const toolContent = (tool: Parameters<ToolReader['content']>[0]) => new ToolReader().content(tool);

describe('tool content', () => {
  it('reads parameter names and help texts from nested properties and items, within bounds', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 80 }, (_, i) => [`p${i}`, { description: `help ${i}` }]),
    );
    const [, , , , , , names, helps] = toolContent({
      toolKey: 's:t',
      toolName: 't',
      serverName: 's',
      inputSchema: {
        type: 'object',
        properties: {
          repo: { type: 'object', properties: { owner: { description: 'Who owns it', enum: ['me', 3, 'you'] } } },
          labels: {
            type: 'array',
            description: 'Labels to add',
            items: { type: 'object', properties: { color: { description: 'Hex colour' } } },
          },
          ...properties,
        },
      },
    });
    expect(names.split(' ').slice(0, 4)).toEqual(['repo', 'owner', 'labels', 'color']);
    expect(names.split(' ')).toHaveLength(64);
    expect(helps.startsWith('Who owns it me you Labels to add Hex colour help 0')).toBe(true);
  });

  it('reads the parameters of a top-level array schema from its items', () => {
    const [, , , , , , names, helps] = toolContent({
      toolKey: 's:t',
      toolName: 't',
      serverName: 's',
      inputSchema: { type: 'array', items: { type: 'object', properties: { path: { description: 'File path' } } } },
    });
    expect(names).toBe('path');
    expect(helps).toBe('File path');
  });
});
