// The router's `tool_execute` meta-tool (seed 000): the MCP definition of the second of the two tools a
// router lists. The router answers a `tools/call` of it by forwarding `arguments` to the server that
// owns `toolKey` (a result of `tool_discovery`); that call is the outcome to report with `reportOutcome`.

export const TOOL_EXECUTE_NAME = 'tool_execute';

/** The MCP tool definition to return from the router's `tools/list`, beside `TOOL_DISCOVERY_TOOL`. */
export const TOOL_EXECUTE_TOOL = {
  name: TOOL_EXECUTE_NAME,
  title: 'Run a tool',
  description:
    'Run a tool found with tool_discovery: pass its toolKey and the arguments its inputSchema asks for ' +
    '(ask tool_discovery with detail "full" for the schema). Returns the tool\'s own result.',
  inputSchema: {
    type: 'object',
    properties: {
      toolKey: { type: 'string', minLength: 1, description: 'A toolKey from a tool_discovery result.' },
      arguments: { type: 'object', description: "The tool's arguments, as its inputSchema describes them." },
    },
    required: ['toolKey'],
    additionalProperties: false,
  },
  // What it does is the tool's: it may write or delete, and reaches outside the router.
  annotations: {
    title: 'Run a tool',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
} as const;
