package dev.engram.server;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.james.mime4j.dom.Entity;
import org.apache.james.mime4j.dom.Message;
import org.apache.james.mime4j.dom.Multipart;
import org.apache.james.mime4j.dom.SingleBody;
import org.apache.james.mime4j.dom.field.ContentDispositionField;
import org.apache.james.mime4j.message.DefaultMessageBuilder;
import org.apache.james.mime4j.stream.MimeConfig;
import tools.jackson.databind.JsonNode;

/**
 * The {@code file} field of a {@code multipart/form-data} upload (an Agent File), parsed with Apache
 * mime4j. The server's body limit bounds its size.
 *
 * @param file       the file's text (UTF-8)
 * @param fileName   the name the client gave it, for messages
 * @param agentCount how many agents the file holds (also when it is a JSON string holding the document)
 * @param fields     the form's other text fields, by name
 */
record Upload(String file, String fileName, int agentCount, Map<String, String> fields) {
    static Upload read(ServerRequest req) {
        String contentType = req.headers().first(HeaderNames.CONTENT_TYPE).orElse("");
        if (!contentType.toLowerCase(java.util.Locale.ROOT).startsWith("multipart/form-data")) {
            throw ApiException.invalid("missing", "Field required: send the agent file as multipart/form-data field "
                    + "'file'", "body", "file");
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
                throw new java.io.UncheckedIOException(e);
            }
            throw ApiException.badRequest("The multipart body cannot be read: " + Incidents.clientText(e, "an upload"));
        }
        if (!(message.getBody() instanceof Multipart parts)) {
            throw ApiException.invalid("missing", "Field required", "body", "file");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (Entity part : parts.getBodyParts()) {
            if (part.getHeader().getField("Content-Disposition") instanceof ContentDispositionField cd
                    && cd.getParameter("name") != null && !"file".equals(cd.getParameter("name"))
                    && part.getBody() instanceof SingleBody body) {
                try (InputStream in = body.getInputStream()) {
                    fields.put(cd.getParameter("name"), new String(in.readAllBytes(), StandardCharsets.UTF_8));
                } catch (IOException e) {
                    throw ApiException.badRequest("The form field '" + cd.getParameter("name") + "' cannot be read: "
                            + Incidents.clientText(e, "an upload"));
                }
            }
        }
        for (Entity part : parts.getBodyParts()) {
            if (part.getHeader().getField("Content-Disposition") instanceof ContentDispositionField cd
                    && "file".equals(cd.getParameter("name")) && part.getBody() instanceof SingleBody body) {
                String text;
                try (InputStream in = body.getInputStream()) {
                    text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw ApiException.badRequest("The uploaded file cannot be read: " + Incidents.clientText(e, "an upload"));
                }
                String name = cd.getFilename() == null ? "upload.af" : cd.getFilename();
                JsonNode json;
                try {
                    json = Body.JSON.readTree(text);
                    if (json.isString()) {
                        json = Body.JSON.readTree(json.asString());
                    }
                } catch (RuntimeException e) {
                    throw ApiException.invalid("json_invalid", "The file '" + name + "' is not JSON", "body", "file");
                }
                return new Upload(text, name, json.path("agents").size(), Map.copyOf(fields));
            }
        }
        throw ApiException.invalid("missing", "Field required", "body", "file");
    }
}
