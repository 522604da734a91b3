import type { ToolInfo } from '@catalog-search/core';

/**
 * Description characters embedded per tool. The encoder reads the start of a text best, and its cost
 * grows with length: 300 characters keep what a tool does (the first sentence or two) at about the
 * cost of a short sentence. Measured on eval: longer texts did not rank better.
 */
export const EMBEDDED_DESCRIPTION_CHARS = 300;

/** Identifiers as words: `list_events` / `listEvents` → "list events". */
function words(identifier: string): string {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-./:]+/g, ' ')
    .trim();
}

/**
 * The text embedded for a tool: its server and name as words, its title, and the start of its
 * description, e.g. "gcal list events: List events in a Google Calendar between two dates."
 * Parameters are left out: their names and help add words that pull the meaning away from the task.
 */
export function toolText(tool: ToolInfo): string {
  const name = `${words(String(tool.serverName))} ${words(String(tool.toolName))}`.slice(0, 200);
  const title = typeof tool.title === 'string' && tool.title.trim() !== '' ? ` (${tool.title.slice(0, 100)})` : '';
  const description = typeof tool.description === 'string' ? tool.description.slice(0, EMBEDDED_DESCRIPTION_CHARS) : '';
  return `${name}${title}: ${description}`.trim();
}
