// Where the MCP endpoint is on a docwright server: the HTTP route and the stdio bridge share it.
export const MCP_PATH = '/mcp';
