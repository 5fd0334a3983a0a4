package dev.engram.server;

import io.helidon.http.Status;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * An answer that is not a success, as Letta gives it: a status and a body {@code {"detail": ...}} whose
 * detail is a sentence, or for a request that fails validation (422) FastAPI's list of
 * {@code {"loc", "msg", "type"}} problems.
 */
final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Status status;
    private final transient JsonNode detail;

    private ApiException(Status status, String message, JsonNode detail) {
        super(message, null, false, false);
        this.status = status;
        this.detail = detail;
    }

    Status status() {
        return status;
    }

    /** The response body. */
    ObjectNode body() {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.set("detail", detail);
        return body;
    }

    static ApiException of(Status status, String detail) {
        return new ApiException(status, detail, JsonNodeFactory.instance.stringNode(detail));
    }

    static ApiException badRequest(String detail) {
        return of(Status.BAD_REQUEST_400, detail);
    }

    static ApiException notFound(String detail) {
        return of(Status.NOT_FOUND_404, detail);
    }

    static ApiException conflict(String detail) {
        return of(Status.CONFLICT_409, detail);
    }

    static ApiException unauthorized(String detail) {
        return of(Status.UNAUTHORIZED_401, detail);
    }

    static ApiException forbidden(String detail) {
        return of(Status.FORBIDDEN_403, detail);
    }

    /** A 422 naming one field of the body: {@code loc} is {@code ["body", field...]}. */
    static ApiException invalid(String type, String message, String... location) {
        return invalid(List.of(new Problem(type, message, List.of(location))));
    }

    /** A 422 with several problems. */
    static ApiException invalid(List<Problem> problems) {
        ArrayNode list = JsonNodeFactory.instance.arrayNode();
        StringBuilder text = new StringBuilder();
        for (Problem p : problems) {
            ObjectNode o = list.addObject();
            o.put("type", p.type());
            ArrayNode loc = o.putArray("loc");
            p.location().forEach(loc::add);
            o.put("msg", p.message());
            text.append(text.isEmpty() ? "" : "; ").append(String.join(".", p.location())).append(": ").append(p.message());
        }
        return new ApiException(Status.UNPROCESSABLE_CONTENT_422, text.toString(), list);
    }

    /** One problem of a request that failed validation. */
    record Problem(String type, String message, List<String> location) {
    }
}
