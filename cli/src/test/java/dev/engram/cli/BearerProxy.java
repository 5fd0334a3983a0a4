package dev.engram.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * A local HTTP/1.1 proxy that adds {@code Authorization: Bearer KEY} to every request and passes everything else on
 * untouched (the {@code Host} and {@code Origin} headers included): the MCP conformance suite has no option for a
 * server's credentials, and {@code engram mcp --http} refuses requests without a key. Each request goes on its own
 * connection ({@code Connection: close}), so that every request's head passes through here.
 */
final class BearerProxy implements AutoCloseable {
    private static final Pattern DROPPED = Pattern.compile("(?i)^(authorization|connection|keep-alive):.*$");

    private final ServerSocket socket;
    private final int targetPort;
    private final String key;

    private BearerProxy(ServerSocket socket, int targetPort, String key) {
        this.socket = socket;
        this.targetPort = targetPort;
        this.key = key;
    }

    /** A proxy on a free loopback port forwarding to {@code 127.0.0.1:targetPort} with {@code key}. */
    static BearerProxy start(int targetPort, String key) throws IOException {
        BearerProxy proxy = new BearerProxy(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), targetPort, key);
        Thread.ofVirtual().start(proxy::accept);
        return proxy;
    }

    /** The proxy's URL for {@code path}. */
    String url(String path) {
        return "http://localhost:" + socket.getLocalPort() + path;
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket client = socket.accept();
                Thread.ofVirtual().start(() -> forward(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void forward(Socket client) {
        try (client; Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort)) {
            InputStream in = client.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    return;
                }
                head.write(b);
                matched = (b == '\r' && matched % 2 == 0) || (b == '\n' && matched % 2 == 1) ? matched + 1 : 0;
            }
            StringBuilder rewritten = new StringBuilder();
            String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
            rewritten.append(lines[0]).append("\r\n");
            for (int i = 1; i < lines.length; i++) {
                if (!lines[i].isEmpty() && !DROPPED.matcher(lines[i]).matches()) {
                    rewritten.append(lines[i]).append("\r\n");
                }
            }
            rewritten.append("Authorization: Bearer ").append(key).append("\r\nConnection: close\r\n\r\n");
            OutputStream toServer = server.getOutputStream();
            toServer.write(rewritten.toString().getBytes(StandardCharsets.ISO_8859_1));
            toServer.flush();
            Thread up = Thread.ofVirtual().start(() -> {
                try {
                    in.transferTo(toServer);
                } catch (IOException e) {
                    // the client or the server closed
                }
            });
            server.getInputStream().transferTo(client.getOutputStream());
            up.interrupt();
        } catch (IOException e) {
            // one side closed the connection early: nothing to pass on
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
