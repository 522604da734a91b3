import { describe, expect, it } from 'vitest';
import { toolContent } from '../src/ranking/tool-content.js';

describe('tool content', () => {
  it('reads parameter names and help texts from nested properties and items, within bounds', () => {
    const properties = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`p${i}`, { description: `help ${i}` }]));
    const [, , , , , , names, helps] = toolContent({
      toolKey: 's:t',
      toolName: 't',
      serverName: 's',
      inputSchema: { type: 'object', properties: { repo: { type: 'object', properties: { owner: { description: 'Who owns it', enum: ['me', 3, 'you'] } } }, ...properties } },
    });
    expect(names.split(' ').slice(0, 3)).toEqual(['repo', 'owner', 'p0']);
    expect(names.split(' ')).toHaveLength(64);
    expect(helps.startsWith('Who owns it me you help 0')).toBe(true);
  });
});
