/**
 * Server instructions for the model, each wrapped in its own tag. The server name is
 * attribute-escaped and a closing tag inside the text is neutralized, so a server
 * cannot end its block early and speak as someone else.
 */
export function wrapInstructions(server: string, text: string): string {
  const name = server.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const body = text.replace(/<\/mcp_instructions\s*>/gi, "&lt;/mcp_instructions&gt;");
  return `<mcp_instructions server="${name}">\n${body}\n</mcp_instructions>`;
}
