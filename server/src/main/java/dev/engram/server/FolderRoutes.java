package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.memory.FilePassage;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.FolderStore;
import dev.engram.memory.Metadata;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import dev.engram.tools.DocumentFormat;
import dev.engram.tools.FileUpload;
import dev.engram.tools.FolderUploads;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Letta's folders ({@code /v1/folders}) and their older name, sources ({@code /v1/sources}), the same objects at both:
 * create, list ({@code name}, cursor pages), retrieve by id and by name, modify, delete (with files and passages), count,
 * metadata; {@code POST …/upload} takes a multipart {@code file}, answers at once with the file ({@code pending}, with
 * Engram's {@code job_id}: follow it at {@code /v1/jobs/{job_id}} or the file's {@code processing_status}) and processes
 * it in the background ({@link FolderUploads}); files, a file, deleting a file; passages ({@code search} ranks them by
 * hybrid search, {@code top_k} at most); the agents of a folder. An unknown format is a 415 naming the accepted ones;
 * another user's folder or file is a 404. Admin keys create folders for the default user and see every user's.
 */
final class FolderRoutes {
    private static final List<String> PREFIXES = List.of("/v1/folders", "/v1/sources");

    private final Api api;

    FolderRoutes(Api api) {
        this.api = api;
    }

    /** A folder and the user it belongs to. */
    private record Owned(String user, Folder folder) {
    }

    List<Route> routes() {
        Route.Table t = Route.table();
        for (String p : PREFIXES) {
            t.add(Route.caller(GET, p + "/count", this::count));
            t.add(Route.caller(GET, p + "/metadata", this::metadata));
            t.add(Route.caller(GET, p + "/name/{folder_name}", this::byName));
            t.twin(Route.caller(GET, p, this::list));
            t.twin(Route.caller(POST, p, this::create));
            t.add(Route.caller(GET, p + "/{folder_id}", (c, req, res) -> Api.json(res, FolderViews.folder(owned(c, req).folder()))));
            t.add(Route.caller(PATCH, p + "/{folder_id}", this::modify));
            t.add(Route.caller(DELETE, p + "/{folder_id}", this::delete));
            t.add(Route.caller(POST, p + "/{folder_id}/upload", this::upload));
            t.add(Route.caller(GET, p + "/{folder_id}/agents", this::agents));
            t.add(Route.caller(GET, p + "/{folder_id}/passages", this::passages));
            t.add(Route.caller(GET, p + "/{folder_id}/files", this::files));
            t.add(Route.caller(GET, p + "/{folder_id}/files/{file_id}", this::file));
            t.add(Route.caller(DELETE, p + "/{folder_id}/{file_id}", this::deleteFile));
        }
        return t.list();
    }

    private FolderStore folders() {
        return api.store.folders();
    }

    private Owned owned(Caller caller, ServerRequest req) {
        String id = req.path().pathParameters().get("folder_id");
        for (String user : api.users(caller)) {
            Optional<Folder> f = folders().get(user, id);
            if (f.isPresent()) {
                return new Owned(user, f.get());
            }
        }
        throw ApiException.notFound("Folder '" + id + "' not found.");
    }

    private List<Folder> all(Caller caller) {
        List<Folder> out = new ArrayList<>();
        api.users(caller).forEach(u -> out.addAll(folders().list(u)));
        out.sort(Comparator.comparing(Folder::createdAt).thenComparing(Folder::id));
        return out;
    }

    private void count(Caller caller, ServerRequest req, ServerResponse res) {
        Api.json(res, Body.JSON.getNodeFactory().numberNode(all(caller).size()));
    }

    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, true);
        List<Folder> folders = new ArrayList<>(all(caller));
        Query.string(req, "name").ifPresent(n -> folders.removeIf(f -> !f.name().equals(n)));
        Api.json(res, pages.page(folders, Folder::id, "folder").stream().map(FolderViews::folder).toList());
    }

    private void byName(Caller caller, ServerRequest req, ServerResponse res) {
        String name = req.path().pathParameters().get("folder_name");
        Folder folder = all(caller).stream().filter(f -> f.name().equals(name)).findFirst()
                .orElseThrow(() -> ApiException.notFound("No folder of that name was found."));
        Api.json(res, Body.JSON.getNodeFactory().stringNode(folder.id()));
    }

    private void metadata(Caller caller, ServerRequest req, ServerResponse res) {
        boolean detailed = Query.bool(req, "include_detailed_per_source_metadata", false);
        ObjectNode out = Body.JSON.createObjectNode();
        ArrayNode sources = Body.JSON.createArrayNode();
        long files = 0;
        long size = 0;
        for (Folder f : all(caller)) {
            List<FolderFile> in = folders().files(f.userId(), f.id());
            long bytes = in.stream().mapToLong(FolderFile::sizeBytes).sum();
            files += in.size();
            size += bytes;
            ObjectNode s = sources.addObject().put("source_id", f.id()).put("source_name", f.name()).put("folder_id", f.id())
                    .put("folder_name", f.name()).put("file_count", in.size()).put("total_size", bytes);
            ArrayNode list = s.putArray("files");
            if (detailed) {
                in.forEach(x -> list.addObject().put("file_id", x.id()).put("file_name", x.name()).put("file_size", x.sizeBytes()));
            }
        }
        out.put("total_sources", sources.size()).put("total_files", files).put("total_size", size).set("sources", sources);
        Api.json(res, out);
    }

    private void create(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String name = body.requiredString("name");
        String user = caller.user().orElse(Api.DEFAULT_USER);
        Folder folder;
        try {
            folder = folders().create(user, name, body.string("description").orElse(""),
                    body.string("instructions").orElse(""), SearchParams.metadata(body));
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", e.getMessage(), "name");
        }
        Api.json(res, FolderViews.folder(folder));
    }

    private void modify(Caller caller, ServerRequest req, ServerResponse res) {
        Owned o = owned(caller, req);
        Body body = Api.body(req);
        Folder changed = o.folder();
        try {
            changed = body.string("name").map(changed::withName).orElse(changed);
            changed = body.string("description").map(changed::withDescription).orElse(changed);
            changed = body.string("instructions").map(changed::withInstructions).orElse(changed);
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", e.getMessage());
        }
        if (body.has("metadata")) {
            Metadata metadata = SearchParams.metadata(body);
            changed = changed.withMetadata(metadata);
        }
        Api.json(res, FolderViews.folder(folders().update(o.user(), changed)));
    }

    private void delete(Caller caller, ServerRequest req, ServerResponse res) {
        Owned o = owned(caller, req);
        folders().delete(o.user(), o.folder().id());
        Api.json(res, Body.JSON.nullNode());
    }

    private void upload(Caller caller, ServerRequest req, ServerResponse res) {
        Owned o = owned(caller, req);
        FolderUploads.Duplicates duplicates;
        try {
            duplicates = FolderUploads.Duplicates.of(Query.string(req, "duplicate_handling").orElse("suffix"));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("enum", e.getMessage(), "query", "duplicate_handling");
        }
        UploadedFile file = UploadedFile.read(req);
        String name = Query.string(req, "name").filter(n -> !n.isBlank()).orElse(file.fileName());
        if (DocumentFormat.of(name).isEmpty()) {
            ApiException refused = ApiException.of(Status.UNSUPPORTED_MEDIA_TYPE_415, "Unsupported file type: '" + name
                    + "'. Supported: " + String.join(", ", DocumentFormat.accepted()) + " (text, Markdown, source code, JSON, "
                    + "CSV, HTML and PDF).");
            throw refused;
        }
        if (DocumentFormat.of(name).orElseThrow() != DocumentFormat.PDF) {
            api.quotas.storedBytes(o.user(), file.content().length); // text about as long as the upload: refuse at once
        }
        FileUpload upload = api.uploads.upload(o.user(), o.folder().id(), name, file.content(), duplicates);
        ObjectNode view = FolderViews.file(upload.file(), false);
        upload.job().ifPresent(j -> view.put("job_id", j.id()));
        if (upload.skipped()) {
            res.header(HeaderNames.create("X-Upload-Result"), "skipped");
        }
        Api.json(res, view);
    }

    private void agents(Caller caller, ServerRequest req, ServerResponse res) {
        Owned o = owned(caller, req);
        Pages pages = Pages.of(req, 100, true);
        ArrayNode out = Body.JSON.createArrayNode();
        pages.page(folders().agents().agents(o.user(), o.folder().id()), id -> id, "agent").forEach(out::add);
        Api.json(res, out);
    }

    private void passages(Caller caller, ServerRequest req, ServerResponse res) {
        Owned o = owned(caller, req);
        Map<String, String> names = new HashMap<>();
        folders().files(o.user(), o.folder().id()).forEach(f -> names.put(f.id(), f.name()));
        Optional<String> search = Query.string(req, "search").filter(s -> !s.isBlank());
        if (search.isPresent()) {
            int k = Query.integer(req, "top_k", 1, SearchRequest.MAX_K).or(() -> Query.integer(req, "limit", 1, SearchRequest.MAX_K))
                    .orElse(10);
            api.runtime.search().awaitIndexed();
            SearchRequest.Builder request = SearchRequest.builder(dev.engram.memory.Scope.of(o.user(), o.folder().id()),
                    search.get()).domains(SearchDomain.FILES).folders(List.of(o.folder().id())).k(k);
            List<ObjectNode> hits = new ArrayList<>();
            for (SearchHit hit : api.runtime.search().search(request.build())) {
                folders().passage(o.user(), hit.id()).ifPresent(p -> {
                    ObjectNode v = FolderViews.passage(p, names.getOrDefault(p.fileId(), ""));
                    PassageRoutes.scores(v, hit);
                    hits.add(v);
                });
            }
            Api.json(res, hits);
            return;
        }
        Pages pages = Pages.of(req, 100, true);
        long count = folders().countPassages(o.user(), o.folder().id());
        List<FilePassage> all = new ArrayList<>();
        for (int offset = 0; offset < count; offset += FolderStore.MAX_LIST) {
            all.addAll(folders().passages(o.user(), o.folder().id(), offset, FolderStore.MAX_LIST));
        }
        Api.json(res, pages.page(all, FilePassage::id, "passage").stream()
                .map(p -> FolderViews.passage(p, names.getOrDefault(p.fileId(), ""))).toList());
    }

    private void files(Caller caller, ServerRequest req, ServerResponse res) {
        Owned o = owned(caller, req);
        boolean content = Query.bool(req, "include_content", false);
        Pages pages = Pages.of(req, 100, true);
        Api.json(res, pages.page(folders().files(o.user(), o.folder().id()), FolderFile::id, "file").stream()
                .map(f -> FolderViews.file(f, content)).toList());
    }

    private FolderFile ownedFile(Owned o, ServerRequest req) {
        String id = req.path().pathParameters().get("file_id");
        return folders().file(o.user(), id).filter(f -> f.folderId().equals(o.folder().id()))
                .orElseThrow(() -> ApiException.notFound("File '" + id + "' not found in folder '" + o.folder().id() + "'."));
    }

    private void file(Caller caller, ServerRequest req, ServerResponse res) {
        Owned o = owned(caller, req);
        Api.json(res, FolderViews.file(ownedFile(o, req), Query.bool(req, "include_content", false)));
    }

    private void deleteFile(Caller caller, ServerRequest req, ServerResponse res) {
        Owned o = owned(caller, req);
        folders().deleteFile(o.user(), ownedFile(o, req).id());
        res.status(Status.NO_CONTENT_204).send();
    }
}
