package dev.engram.mcp;

/** How an MCP server is reached, with Letta's names ({@code mcp_server_type}). */
public enum McpTransport {
    /** A local program spoken to over its stdin and stdout. */
    STDIO("stdio"),
    /** The older HTTP transport: an SSE stream from the server and POSTs to it. */
    SSE("sse"),
    /** Streamable HTTP: POSTs to one endpoint, answered with JSON or an SSE stream. */
    STREAMABLE_HTTP("streamable_http");

    private final String label;

    McpTransport(String label) {
        this.label = label;
    }

    /** Letta's name of the transport. */
    public String label() {
        return label;
    }

    /**
     * The transport of Letta's name.
     *
     * @throws IllegalArgumentException for another name, listing the three
     */
    public static McpTransport of(String label) {
        for (McpTransport t : values()) {
            if (t.label.equals(label)) {
                return t;
            }
        }
        throw new IllegalArgumentException("An MCP server's type is stdio, sse or streamable_http, not '" + label + "'");
    }
}
