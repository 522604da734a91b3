/**
 * toolKey identifies a tool in results, so it must be unique within a request's tools: the service
 * answers 400 and the client refuses the request before sending it. Both find the duplicate here.
 * Returns the first tool whose key an earlier tool has, with that earlier tool's index.
 */
export function findDuplicateToolKey(tools: readonly { toolKey: string }[]): { index: number; earlier: number; toolKey: string } | undefined {
  const seen = new Map<string, number>();
  for (let index = 0; index < tools.length; index += 1) {
    const toolKey = tools[index]!.toolKey;
    const earlier = seen.get(toolKey);
    if (earlier !== undefined) return { index, earlier, toolKey };
    seen.set(toolKey, index);
  }
  return undefined;
}
