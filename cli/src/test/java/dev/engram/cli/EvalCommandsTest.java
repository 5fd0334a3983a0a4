package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code engram eval} on slices of the shared datasets (copied to a temporary directory for the
 * test only); skipped, with a message, when {@code ../shared/data} is absent.
 */
class EvalCommandsTest {
    private static final Path DATA = Path.of(System.getProperty("engram.shared.data", "../shared/data"));

    @TempDir
    Path home;

    @TempDir
    Path work;

    @Test
    void sciFactPrintsItsTableAndTheHeadlineLast() throws IOException {
        Path scifact = DATA.resolve("scifact");
        assumeTrue(Files.isRegularFile(scifact.resolve("corpus.jsonl")), "skipped: no SciFact data at " + scifact
                + " (the shared data sits beside the project in CI)");
        // A slice: the first 400 documents and the training queries judged against them.
        Path dir = Files.createDirectories(work.resolve("scifact"));
        Set<String> ids = new HashSet<>();
        List<String> corpus = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(scifact.resolve("corpus.jsonl"))) {
            for (String line; (line = r.readLine()) != null && corpus.size() < 400; ) {
                corpus.add(line);
                ids.add(Json.parse(line).path("_id").asString());
            }
        }
        Files.write(dir.resolve("corpus.jsonl"), corpus);
        Files.copy(scifact.resolve("queries.jsonl"), dir.resolve("queries.jsonl"));
        List<String> qrels = new ArrayList<>(List.of("query-id\tcorpus-id\tscore"));
        Files.readAllLines(scifact.resolve("qrels/train.tsv")).stream().skip(1)
                .filter(l -> ids.contains(l.split("\t")[1])).forEach(qrels::add);
        Path qrelsFile = Files.write(dir.resolve("train.tsv"), qrels);

        Cli.Run run = Cli.run(home, "eval", "scifact", dir.toString(), "--qrels", qrelsFile.toString(), "--mode", "bm25",
                "--mode", "hybrid");

        assertThat(run.exit()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(run.out()).contains("bm25").contains("hybrid");
        assertThat(lines.getLast()).matches("nDCG@10 0\\.\\d{4}");
        assertThat(Double.parseDouble(lines.getLast().substring(8))).isGreaterThan(0.3);
    }

    @Test
    void loCoMoPrintsItsTableAndTheHeadlineLast() throws IOException {
        Path locomo = DATA.resolve("locomo/locomo-dev.json");
        assumeTrue(Files.isRegularFile(locomo), "skipped: no LoCoMo data at " + locomo
                + " (the shared data sits beside the project in CI)");
        ArrayNode all = (ArrayNode) Json.MAPPER.readTree(locomo.toFile());
        ArrayNode one = Json.MAPPER.createArrayNode().add(all.get(0));
        Path file = work.resolve("locomo-one.json");
        Files.writeString(file, one.toString());

        Cli.Run run = Cli.run(home, "eval", "locomo", file.toString(), "--mode", "hybrid");

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out().lines().toList().getFirst()).as("the header names the library's defaults")
                .isEqualTo("model bge-small, fusion weighted:0.3,0.7;conversations:0.5,0.5, candidates 100, conversation context 2 before and 1 after");
        assertThat(run.out().lines().toList().getLast()).matches("recall@10 0\\.\\d{4}");

        Cli.Run chosen = Cli.run(home, "eval", "locomo", file.toString(), "--mode", "bm25", "--model", "minilm",
                "--fusion", "rrf", "--context", "0,0", "--candidates", "50");
        assertThat(chosen.exit()).as(chosen.err()).isZero();
        assertThat(chosen.out().lines().toList().getFirst())
                .isEqualTo("model minilm, fusion rrf:60, candidates 50, conversation context 0 before and 0 after");
    }

    @Test
    void missingDataIsAUsageError() {
        Cli.Run run = Cli.run(home, "eval", "scifact", work.resolve("nothing").toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).startsWith("engram: Not a SciFact directory");
        Cli.Run model = Cli.run(home, "eval", "locomo", work.toString(), "--model", "gpt");
        assertThat(model.exit()).isEqualTo(2);
        Path file = work.resolve("empty.json");
        try {
            Files.writeString(file, "[]");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        for (String[] bad : new String[][] {{"--fusion", "max"}, {"--context", "2"}, {"--context", "2,11"}, {"--candidates", "5"}}) {
            Cli.Run r = Cli.run(home, "eval", "locomo", file.toString(), bad[0], bad[1]);
            assertThat(r.exit()).as(String.join(" ", bad)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", bad)).startsWith("engram: ").contains(bad[0]).doesNotContain("Exception");
        }
    }

    /** conv-26's first two sessions and six of their questions (the third adversarial), as a LoCoMo file. */
    private Path slice() throws IOException {
        Path locomo = DATA.resolve("locomo/locomo-dev.json");
        assumeTrue(Files.isRegularFile(locomo), "skipped: no LoCoMo data at " + locomo
                + " (the shared data sits beside the project in CI)");
        JsonNode first = Json.MAPPER.readTree(locomo.toFile()).get(0);
        ObjectNode conversation = Json.MAPPER.createObjectNode();
        for (String name : List.of("speaker_a", "speaker_b", "session_1_date_time", "session_1", "session_2_date_time",
                "session_2")) {
            conversation.set(name, first.path("conversation").get(name));
        }
        ArrayNode qa = Json.MAPPER.createArrayNode();
        for (String question : List.of("When did Caroline go to the LGBTQ support group?", "When did Melanie paint a sunrise?",
                "What did Caroline realize after her charity race?", "What fields would Caroline be likely to pursue in her educaton?",
                "What did Caroline research?", "What is Caroline's identity?")) {
            for (JsonNode q : first.path("qa")) {
                if (q.path("question").asString().equals(question)) {
                    qa.add(q);
                }
            }
        }
        ObjectNode sample = Json.MAPPER.createObjectNode().put("sample_id", "conv-26");
        sample.set("conversation", conversation);
        sample.set("qa", qa);
        return Files.writeString(work.resolve("locomo-slice.json"), Json.MAPPER.createArrayNode().add(sample).toString());
    }

    /** An OpenAI-compatible server on loopback: /answer answers by question, /judge labels by gold answer. */
    private static HttpServer models(List<JsonNode> answerRequests, List<JsonNode> judgeRequests) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/answer/v1/chat/completions", exchange -> {
            JsonNode body = Json.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
            answerRequests.add(body);
            String prompt = body.path("messages").get(1).path("content").asString();
            String answer = prompt.contains("Question: When did Caroline go to the LGBTQ support group?") ? "7 May 2023"
                    : prompt.contains("Question: When did Melanie paint a sunrise?") ? "In 2022"
                    : prompt.contains("Question: What did Caroline research?") ? "Adoption agencies" : "Psychology";
            reply(exchange, answer);
        });
        server.createContext("/judge/v1/chat/completions", exchange -> {
            JsonNode body = Json.MAPPER.readTree(exchange.getRequestBody().readAllBytes());
            judgeRequests.add(body);
            String all = body.path("messages").toString();
            String label = all.contains("Question: What did Caroline research?") ? "It is right, I think."
                    : all.contains("could not be read") ? "{\"reasoning\": \"other fields\", \"label\": \"WRONG\"}"
                    : all.contains("Question: What fields") ? "Wrong."
                    : "{\"reasoning\": \"the same\", \"label\": \"CORRECT\"}";
            reply(exchange, label);
        });
        server.start();
        return server;
    }

    private static void reply(HttpExchange exchange, String content) throws IOException {
        ObjectNode response = Json.MAPPER.createObjectNode();
        response.putArray("choices").addObject().put("index", 0).put("finish_reason", "stop").putObject("message")
                .put("role", "assistant").put("content", content);
        response.putObject("usage").put("prompt_tokens", 10).put("completion_tokens", 2);
        byte[] bytes = response.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, bytes.length);
        try (var out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Test
    void loCoMoAnswerEvalAsksTheModelsAndReportsAccuracyCostAndEveryFailure() throws IOException {
        Path file = slice();
        List<JsonNode> answerRequests = Collections.synchronizedList(new ArrayList<>());
        List<JsonNode> judgeRequests = Collections.synchronizedList(new ArrayList<>());
        HttpServer server = models(answerRequests, judgeRequests);
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            Cli.Run run = Cli.run(home, "eval", "locomo", file.toString(), "--answer-model", base + "/answer/v1#reader",
                    "--judge-model", base + "/judge/v1#judge", "--mode", "bm25", "--k", "5", "--questions", "4",
                    "--model", "minilm");

            assertThat(run.exit()).as(run.err()).isZero();
            List<String> lines = run.out().lines().toList();
            assertThat(lines.getFirst()).endsWith("; answer model " + base + "/answer/v1#reader, judge model " + base
                    + "/judge/v1#judge");
            assertThat(run.out()).contains("(1 conversations, 35 turns, 4 questions asked, 1 skipped as adversarial or "
                            + "without a gold answer, 1 beyond --questions; 5 bm25 hits per question)")
                    .contains("all                4        2       1    0.5000")
                    .contains("retrieval: ").contains(" context tokens for 5 hits, search p50 ")
                    .contains("answer model: p50 ")
                    .contains("1 question(s) could not be scored (counted as not correct):")
                    .contains("  conv-26 judge: \"What did Caroline research?\": the judge's reply could not be read, also "
                            + "when asked again with the error: the reply holds no JSON object with a \"label\"");
            assertThat(lines.getLast()).isEqualTo("accuracy 0.5000");
            assertThat(answerRequests).hasSize(4).allSatisfy(r -> {
                assertThat(r.path("model").asString()).isEqualTo("reader");
                assertThat(r.path("messages").get(1).path("content").asString().split("\n- \\[", -1)).hasSize(6);
            });
            // two judged at once, the unreadable one and the one read at the second try asked twice each
            assertThat(judgeRequests).hasSize(6).allSatisfy(r -> assertThat(r.path("model").asString()).isEqualTo("judge"));
        } finally {
            server.stop(0);
        }
    }

    @Test
    void theAnswerEvalsOptionsAreCheckedBeforeAnyModelIsAsked() throws IOException {
        Path file = work.resolve("empty.json");
        Files.writeString(file, "[]");
        for (String[] bad : new String[][] {{"--answer-model", "script:x.json"}, {"--k", "5"}, {"--questions", "3"},
                {"--answer-model", "nonsense:x", "--judge-model", "script:x.json"},
                {"--answer-model", "http://127.0.0.1:9/v1#m", "--judge-model", "http://127.0.0.1:9/v1#m", "--k", "0"},
                {"--answer-model", "http://127.0.0.1:9/v1#m", "--judge-model", "http://127.0.0.1:9/v1#m", "--mode", "bm25",
                        "--mode", "hybrid"},
                {"--answer-model", "http://127.0.0.1:9/v1#m", "--judge-model", "http://127.0.0.1:9/v1#m", "--conversations",
                        "conv-99"}}) {
            List<String> args = new ArrayList<>(List.of("eval", "locomo", file.toString()));
            args.addAll(List.of(bad));
            Cli.Run r = Cli.run(home, args.toArray(String[]::new));
            assertThat(r.exit()).as(String.join(" ", bad) + ": " + r.err()).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", bad)).startsWith("engram: ").doesNotContain("Exception");
            assertThat(r.out()).as("nothing was measured").doesNotContain("accuracy").doesNotContain("recall@");
        }
        Cli.Run conversations = Cli.run(home, "eval", "locomo", file.toString(), "--answer-model", "http://127.0.0.1:9/v1#m",
                "--judge-model", "http://127.0.0.1:9/v1#m", "--conversations", "conv-99");
        assertThat(conversations.err()).contains("holds no conversation [conv-99]");
        Cli.Run half = Cli.run(home, "eval", "locomo", file.toString(), "--judge-model", "http://127.0.0.1:9/v1#m");
        assertThat(half.err()).contains("needs both --answer-model and --judge-model");
    }
}
