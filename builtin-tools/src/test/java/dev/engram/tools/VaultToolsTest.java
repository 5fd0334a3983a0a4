package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.memory.MemoryStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vault_list} and {@code vault_copyto} through the real pipeline: the copies, and every refusal leaving the workspace as it was. */
class VaultToolsTest {
    private static final String SECRET = "token=s3cr3t-do-not-leak";

    @TempDir
    Path dir;

    private Path vaultDir;
    private Path ws;
    private MemoryStore store;
    private ToolRegistry registry;

    @BeforeEach
    void setUp() throws Exception {
        vaultDir = Files.createDirectories(dir.resolve("vault"));
        ws = Files.createDirectories(dir.resolve("ws"));
        Files.writeString(vaultDir.resolve("api.txt"), SECRET);
        Files.writeString(dir.resolve("outside.txt"), "outside-secret");
        Files.createSymbolicLink(vaultDir.resolve("escape.txt"), dir.resolve("outside.txt"));
        Files.writeString(vaultDir.resolve(Vault.MANIFEST), """
                {"items": [
                  {"name": "api-token", "file": "api.txt", "agents": ["helper"], "description": "API token"},
                  {"name": "for-all", "file": "api.txt", "agents": ["*"]},
                  {"name": "coach-only", "file": "api.txt", "agents": ["coach"]}
                ]}""");
        store = MemoryStore.inMemory();
        registry = ToolRegistry.create();
        BuiltinTools.vault(Vault.open(vaultDir), Workspace.of(ws), store).forEach(registry::register);
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    private ToolResult call(String agent, String tool, String args) {
        ToolContext ctx = ToolContext.builder().userId("ana").agentId(agent).sessionId("s1").build();
        return ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build().execute(ToolCall.of(tool, args), ctx);
    }

    private List<Path> workspaceFiles() throws Exception {
        try (var files = Files.walk(ws)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    @Test
    void theListShowsNamesAndSizesOfTheAgentsItemsOnly() {
        ToolResult r = call("helper", "vault_list", "{}");
        assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.content()).contains("\"api-token\"", "\"for-all\"", "\"bytes\":" + SECRET.length(), "API token")
                .doesNotContain("coach-only").doesNotContain("s3cr3t");
    }

    @Test
    void aCopyWritesTheFileOwnerOnlyAndTheResultHoldsNoContent() throws Exception {
        ToolResult r = call("helper", "vault_copyto", "{\"item\": \"api-token\", \"destination\": \"conf/token\"}");
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.content()).contains("conf/token", "\"bytes\":" + SECRET.length()).doesNotContain("s3cr3t");
        assertThat(Files.readString(ws.resolve("conf/token"))).isEqualTo(SECRET);
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(ws.resolve("conf/token"))))
                .isEqualTo("rw-------");
        assertThat(workspaceFiles()).hasSize(1);
    }

    @Test
    void anUnknownItemIsRefused() throws Exception {
        ToolResult r = call("helper", "vault_copyto", "{\"item\": \"nope\", \"destination\": \"x\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).contains("There is no vault item 'nope'");
        assertThat(workspaceFiles()).isEmpty();
    }

    @Test
    void anItemTheAgentMayNotUseIsRefused() throws Exception {
        ToolResult r = call("helper", "vault_copyto", "{\"item\": \"coach-only\", \"destination\": \"x\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).contains("is not available to this agent").doesNotContain("s3cr3t");
        assertThat(workspaceFiles()).isEmpty();
        assertThat(call("coach", "vault_copyto", "{\"item\": \"coach-only\", \"destination\": \"x\"}").status())
                .isEqualTo(ToolStatus.SUCCESS);
    }

    @Test
    void aDestinationOutsideTheWorkspaceIsRefused() throws Exception {
        for (String dest : List.of("../stolen", dir.resolve("stolen").toString(), "a/../../stolen")) {
            ToolResult r = call("helper", "vault_copyto", "{\"item\": \"api-token\", \"destination\": \"" + dest + "\"}");
            assertThat(r.status()).as(dest).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(r.content()).contains("outside the workspace");
        }
        Files.createSymbolicLink(ws.resolve("link"), dir);
        ToolResult viaLink = call("helper", "vault_copyto", "{\"item\": \"api-token\", \"destination\": \"link/stolen\"}");
        assertThat(viaLink.content()).contains("through a symbolic link");
        assertThat(Files.exists(dir.resolve("stolen"))).isFalse();
        assertThat(workspaceFiles()).isEmpty();
    }

    @Test
    void anExistingDestinationIsKeptUnlessOverwriteIsAsked() throws Exception {
        Files.writeString(ws.resolve("token"), "mine");
        ToolResult r = call("helper", "vault_copyto", "{\"item\": \"api-token\", \"destination\": \"token\"}");
        assertThat(r.content()).contains("exists; pass overwrite: true");
        assertThat(Files.readString(ws.resolve("token"))).isEqualTo("mine");
        assertThat(call("helper", "vault_copyto", "{\"item\": \"api-token\", \"destination\": \"token\", \"overwrite\": true}")
                .status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(Files.readString(ws.resolve("token"))).isEqualTo(SECRET);
    }

    @Test
    void aManifestNamingASymlinkOutOfTheVaultIsRefusedWhenOpened() throws Exception {
        Files.writeString(vaultDir.resolve(Vault.MANIFEST), """
                {"items": [{"name": "escape", "file": "escape.txt", "agents": ["*"]}]}""");
        assertThatThrownBy(() -> Vault.open(vaultDir)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leads outside the vault through a symbolic link");
        Files.writeString(vaultDir.resolve(Vault.MANIFEST), """
                {"items": [{"name": "up", "file": "../outside.txt", "agents": ["*"]}]}""");
        assertThatThrownBy(() -> Vault.open(vaultDir)).hasMessageContaining("outside the vault");
        Files.writeString(vaultDir.resolve(Vault.MANIFEST), """
                {"items": [{"name": "self", "file": "vault.json", "agents": ["*"]}]}""");
        assertThatThrownBy(() -> Vault.open(vaultDir)).hasMessageContaining("not a regular file of the vault");
        Files.writeString(vaultDir.resolve(Vault.MANIFEST), """
                {"items": [{"name": "nobody", "file": "api.txt"}]}""");
        assertThatThrownBy(() -> Vault.open(vaultDir)).hasMessageContaining("\"agents\" must list");
        assertThatThrownBy(() -> Vault.open(dir.resolve("none"))).hasMessageContaining("does not exist");
    }

    @Test
    void anItemTurnedIntoASymlinkOutOfTheVaultAfterOpeningIsRefusedAtCopy() throws Exception {
        Files.delete(vaultDir.resolve("api.txt"));
        Files.createSymbolicLink(vaultDir.resolve("api.txt"), dir.resolve("outside.txt"));
        ToolResult r = call("helper", "vault_copyto", "{\"item\": \"api-token\", \"destination\": \"token\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).contains("leads outside the vault through a symbolic link").doesNotContain("outside-secret");
        assertThat(workspaceFiles()).isEmpty();
    }
}
