package dev.engram.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentRuntime;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Scanner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The root README's Java examples, kept compiling and true. Each differs from the README only where
 * a test must: files in a temporary directory, a scripted model in place of {@code openai:gpt-4o-mini},
 * and lines from a string instead of standard input.
 */
class ReadmeExamplesTest {
    @TempDir
    Path dir;

    @Test
    void aPersistentAssistantIn20Lines() {
        ScriptedChatModel model = ScriptedChatModel.fromJson("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Likes tea", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Noted: you like tea."}}]}
                ]}""");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("assistant.db"));
             Embedder embedder = Embedder.onnxDefault();
             MemorySearch search = MemorySearch.lucene(store, embedder, dir.resolve("assistant-index"));
             AgentRuntime runtime = AgentRuntime.builder(store, search).model("openai:gpt-4o-mini", model).build()) {
            Agent agent = runtime.findByName("ana", "assistant").orElseGet(() -> runtime.create(
                    AgentDefinition.builder("ana").name("assistant").model("openai:gpt-4o-mini")
                            .block("human", "What I know about the user", "")
                            .block("persona", "Who I am", "I am a patient assistant who remembers.")
                            .build()));
            Scanner in = new Scanner("I like tea.\n");
            while (in.hasNextLine()) {
                AgentResponse r = agent.send(in.nextLine());
                out.println(r.reply().orElse("(" + r.stopReason() + ")"));
            }
            assertThat(store.blocks().get(agent.scope(), "human").orElseThrow().value()).isEqualTo("Likes tea");
        }
        assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo("Noted: you like tea." + System.lineSeparator());
    }

    @Test
    void memoryAndSearch() {
        MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));                   // SQLite, WAL, Flyway migrations
        MemorySearch search = MemorySearch.lucene(store, Embedder.onnxDefault(), dir.resolve("index"));  // BM25 + HNSW
        store.archival().insert(Scope.of("ana", "helper"), NewArchivalEntry.of("Ana's sister lives in Zanzibar"));
        List<SearchHit> hits = search.search(SearchRequest.builder(Scope.of("ana", "helper"), "where does her sister live").build());

        assertThat(hits).extracting(SearchHit::text).containsExactly("Ana's sister lives in Zanzibar");
        search.close();
        store.close();
    }
}
