package dev.engram.framework.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A provider that misbehaves at the socket level, on 127.0.0.1: it accepts and never answers, answers
 * 200 with a body that is not JSON, ends a stream halfway, or trickles bytes forever. Each connection
 * reads the request's headers and body first, as a real server would.
 */
final class FaultyProvider implements AutoCloseable {
    /** What the provider does with every request. */
    enum Fault {
        /** Reads the request and never answers. */
        SILENT,
        /** 200 with a JSON content type and a body that is not JSON. */
        NOT_JSON,
        /** 200 with an event stream whose one event's data is not JSON, then the end. */
        STREAM_NOT_JSON,
        /** 200 with an event stream that sends a first piece of text and then closes the connection. */
        TRUNCATED_STREAM,
        /** 200 with headers, then a space every 20 ms, forever. */
        TRICKLE
    }

    private final ServerSocket server;
    private final Fault fault;
    private final String firstEvent;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /** {@code firstEvent}: the one well-formed event a truncated stream sends before it stops (provider-specific). */
    FaultyProvider(Fault fault, String firstEvent) throws IOException {
        this.fault = fault;
        this.firstEvent = firstEvent;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::acceptLoop);
    }

    int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = server.accept();
                open.add(s);
                Thread.ofVirtual().start(() -> serve(s));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            readRequest(in);
            switch (fault) {
                case SILENT -> block();
                case NOT_JSON -> {
                    byte[] body = "<html>502 Bad Gateway from a proxy</html>".getBytes(StandardCharsets.UTF_8);
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                            + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(body);
                    out.flush();
                    block();
                }
                case STREAM_NOT_JSON -> {
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                            + "data: {\"choices\": [oops\n\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
                case TRUNCATED_STREAM -> {
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + firstEvent)
                            .getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
                case TRICKLE -> {
                    out.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    // Whitespace: JSON allows it before a value, and a stream line never ends, so each byte keeps a
                    // reader waiting for the next.
                    while (!closed) {
                        out.write(' ');
                        out.flush();
                        Thread.sleep(20);
                    }
                }
            }
        } catch (IOException | InterruptedException e) {
            // the client gave up: what the tests expect
        }
    }

    private void block() throws InterruptedException {
        while (!closed) {
            Thread.sleep(50);
        }
    }

    /** Reads the request line, headers and a Content-Length body. */
    private static void readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            head.append((char) c);
            if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
                break;
            }
        }
        long length = head.toString().lines().filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:"))
                .mapToLong(l -> Long.parseLong(l.substring(15).strip())).findFirst().orElse(0);
        in.readNBytes((int) length);
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : open) {
            s.close();
        }
    }
}
