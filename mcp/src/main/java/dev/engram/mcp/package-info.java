/** The tools of MCP servers (stdio, SSE, Streamable HTTP) as Engram tools, with timeouts and a circuit per server. */
package dev.engram.mcp;
