/** Where the connector answers: MCP over Streamable HTTP on the platform origin. */
export const MCP_PATH = '/mcp';
