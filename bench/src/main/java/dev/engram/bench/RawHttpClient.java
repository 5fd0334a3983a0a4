package dev.engram.bench;

/**
 * A minimal HTTP/1.1 client on one kept-alive socket, one request at a time: the JDK's client hands each request
 * between its own threads, which on 2 cores costs more than the server's work being measured (about 1 ms per
 * request), and the load's clients share those cores with the server.
 */
final class RawHttpClient implements AutoCloseable {
    private final java.net.Socket socket;
    private final java.io.OutputStream out;
    private final java.io.BufferedInputStream in;
    private final String host;

    RawHttpClient(int port) throws java.io.IOException {
        socket = new java.net.Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = new java.io.BufferedInputStream(socket.getInputStream(), 1 << 16);
        host = "127.0.0.1:" + port;
    }

    /** A response: its status and body. */
    record Response(int status, String body) {
    }

    /** Sends a POST with a JSON body and reads the whole response. */
    Response post(String path, String key, String json) throws java.io.IOException {
        byte[] body = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + key
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n";
        byte[] h = head.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        out.write(all);
        out.flush();
        String status = line();
        int length = -1;
        boolean chunked = false;
        for (String l = line(); !l.isEmpty(); l = line()) {
            String lower = l.toLowerCase(java.util.Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(l.substring(15).strip());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        java.io.ByteArrayOutputStream answer = new java.io.ByteArrayOutputStream();
        if (chunked) {
            for (int n = Integer.parseInt(line().strip(), 16); n > 0; n = Integer.parseInt(line().strip(), 16)) {
                answer.write(in.readNBytes(n));
                line();
            }
            line();
        } else if (length > 0) {
            answer.write(in.readNBytes(length));
        }
        return new Response(Integer.parseInt(status.split(" ")[1]), answer.toString(java.nio.charset.StandardCharsets.UTF_8));
    }

    private String line() throws java.io.IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new java.io.EOFException("the server closed the connection");
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    @Override
    public void close() throws java.io.IOException {
        socket.close();
    }
}
