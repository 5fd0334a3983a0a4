package dev.engram.server;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import org.apache.james.mime4j.dom.Entity;
import org.apache.james.mime4j.dom.Message;
import org.apache.james.mime4j.dom.Multipart;
import org.apache.james.mime4j.dom.SingleBody;
import org.apache.james.mime4j.dom.field.ContentDispositionField;
import org.apache.james.mime4j.message.DefaultMessageBuilder;
import org.apache.james.mime4j.stream.MimeConfig;

/**
 * The {@code file} field of a {@code multipart/form-data} upload to a folder, as bytes, parsed with Apache mime4j. The
 * server's body limit bounds its size.
 *
 * @param content  the file's bytes
 * @param fileName the name the client gave it ({@code upload} when it gave none)
 */
record UploadedFile(byte[] content, String fileName) {
    static UploadedFile read(ServerRequest req) {
        String contentType = req.headers().first(HeaderNames.CONTENT_TYPE).orElse("");
        if (!contentType.toLowerCase(Locale.ROOT).startsWith("multipart/form-data")) {
            throw ApiException.invalid("missing", "Field required: send the file as multipart/form-data field 'file'",
                    "body", "file");
        }
        MimeConfig config = MimeConfig.custom().setMaxLineLen(-1).setMaxHeaderLen(-1).setMaxHeaderCount(200)
                .setHeadlessParsing(contentType).build();
        DefaultMessageBuilder builder = new DefaultMessageBuilder();
        builder.setMimeEntityConfig(config);
        Message message;
        try (InputStream in = req.content().inputStream()) {
            message = builder.parseMessage(in);
        } catch (IOException e) {
            if (Incidents.isClientAbort(e)) {
                throw new UncheckedIOException(e);
            }
            throw ApiException.badRequest("The multipart body cannot be read: " + Incidents.clientText(e, "an upload"));
        }
        if (message.getBody() instanceof Multipart parts) {
            for (Entity part : parts.getBodyParts()) {
                if (part.getHeader().getField("Content-Disposition") instanceof ContentDispositionField cd
                        && "file".equals(cd.getParameter("name")) && part.getBody() instanceof SingleBody body) {
                    try (InputStream in = body.getInputStream()) {
                        String name = cd.getFilename() == null || cd.getFilename().isBlank() ? "upload" : cd.getFilename();
                        return new UploadedFile(in.readAllBytes(), name);
                    } catch (IOException e) {
                        throw ApiException.badRequest("The uploaded file cannot be read: " + Incidents.clientText(e, "an upload"));
                    }
                }
            }
        }
        throw ApiException.invalid("missing", "Field required", "body", "file");
    }
}
