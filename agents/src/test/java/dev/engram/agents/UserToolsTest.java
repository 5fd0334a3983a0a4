package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.AiTool;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolDefinition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A user's own tools (their MCP servers'): given to that user's agents only, and re-read when they change. */
class UserToolsTest {
    @TempDir
    Path dir;

    private AgentFixture fx;

    record City(String city) {
    }

    /** ana's tools, changed by the test. */
    private final Map<String, DynamicTool> anas = new ConcurrentHashMap<>();

    private final UserTools source = new UserTools() {
        @Override
        public Optional<DynamicTool> find(String userId, String name) {
            return userId.equals("ana") ? Optional.ofNullable(anas.get(name)) : Optional.empty();
        }

        @Override
        public List<DynamicTool> list(String userId) {
            return userId.equals("ana") ? List.copyOf(anas.values()) : List.of();
        }
    };

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private static DynamicTool weather(String description) {
        return DynamicTool.from(AiTool.of("fs_weather", description, City.class, SafetyTier.READ_ONLY, (in, ctx) -> "sunny"));
    }

    @Test
    void anAgentMayNameItsUsersToolsButNotAnotherUsers() {
        anas.put("fs_weather", weather("The weather."));
        fx = new AgentFixture(dir).open(b -> b.model("script:x", script("{\"turns\": []}")).userTools(source));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:x").addTools("fs_weather").build());
        assertThat(agent.compilePrompt().tools()).extracting(ToolDefinition::name).contains("fs_weather");

        assertThatThrownBy(() -> fx.runtime.create(AgentDefinition.builder("bob").id("helper").model("script:x")
                .addTools("fs_weather").build())).isInstanceOf(AgentException.class).hasMessageContaining("fs_weather");
        assertThat(fx.runtime.list("bob")).isEmpty();
    }

    @Test
    void retoolOffersAUsersChangedToolsToTheirLoadedAgents() {
        anas.put("fs_weather", weather("The weather."));
        fx = new AgentFixture(dir).open(b -> b.model("script:x", script("{\"turns\": []}")).userTools(source));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:x").addTools("fs_weather").build());
        anas.put("fs_weather", weather("The weather, now with wind."));
        assertThat(agent.compilePrompt().tools()).filteredOn(t -> t.name().equals("fs_weather"))
                .extracting(ToolDefinition::description).containsExactly("The weather.");

        fx.runtime.retool("ana");

        assertThat(agent.compilePrompt().tools()).filteredOn(t -> t.name().equals("fs_weather"))
                .extracting(ToolDefinition::description).containsExactly("The weather, now with wind.");
    }
}
