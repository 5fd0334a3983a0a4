package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolCall;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.Scope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real browser: Debian's headless Chromium, driven by Selenium through Debian's
 * {@code /usr/bin/chromedriver} (Selenium Manager is never asked to download one), against a live server whose model
 * is a {@link ScriptedChatModel}. It signs in, finds only the key's agents, edits a block (and sees the limit refused),
 * streams a reply, approves a tool call, and looks at every page at laptop and phone widths; a screenshot of each page
 * is kept under {@code target/console-screenshots/}. Skipped, saying what to install, where Chromium is absent.
 */
@Execution(ExecutionMode.CONCURRENT) // beside the in-process classes: it mostly waits for the browser
class ConsoleBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SHOTS = Path.of("target", "console-screenshots");

    @TempDir
    Path dir;
    ServerFixture fx;
    ChromeDriver browser;
    WebDriverWait wait;
    String agent;
    String bens;

    @BeforeEach
    void start() throws IOException {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "Chromium and its driver are not installed: apt-get install chromium chromium-driver");
        ScriptedChatModel model = ScriptedChatModel.of(List.of(
                new ScriptedChatModel.Turn("", "The user greets me; I greet back.", List.of(new ToolCall("call-1",
                        "send_message", "{\"message\": \"Hello Ana, nice to meet you. What shall we work on today?\"}")), List.of()),
                new ScriptedChatModel.Turn("", "I should remember the cat.", List.of(new ToolCall("call-2", "block",
                        "{\"operation\": \"append\", \"label\": \"human\", \"text\": \" Ana has a cat called Miso.\", "
                                + "\"request_heartbeat\": true}")), List.of()),
                new ScriptedChatModel.Turn("", "", List.of(new ToolCall("call-3", "send_message",
                        "{\"message\": \"Noted: Miso the cat is in my memory now.\"}")), List.of())));
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", new EchoModel()).model("test:scripted", model))
                .defaultModel("test:scripted"));
        agent = fx.agent(fx.ana, "helper");
        bens = fx.agent(fx.ben, "bens-private-agent");
        fx.post(fx.ana, "/v1/agents/" + agent + "/archival-memory", obj("text", "Ana's cat Miso likes the balcony", "tags", List.of("pets")));
        fx.post(fx.ana, "/v1/agents/" + agent + "/archival-memory", obj("text", "The team meets on Mondays in Lisbon"));
        fx.store.notes().save("ana", "Ana prefers green tea in the afternoon");
        fx.store.notes().save("ben", "Ben's private note");
        Files.createDirectories(SHOTS);

        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toString());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,900", "--no-first-run", "--disable-extensions", "--disable-background-networking",
                "--disable-sync", "--disable-component-update", "--disable-default-apps");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        wait = new WebDriverWait(browser, Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void aUserSignsInEditsMemoryChatsApprovesAndSeesOnlyTheirOwnAgents() {
        browser.get(fx.url("/"));
        WebElement key = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("key")));
        shot("01-signin");
        key.sendKeys("not-a-key", Keys.ENTER);
        assertThat(wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#signin .error"))).getText())
                .contains("Invalid API key");

        browser.findElement(By.id("key")).clear();
        browser.findElement(By.id("key")).sendKeys(fx.ana, Keys.ENTER);
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#agent-list .agent")));
        assertThat(browser.findElement(By.id("who")).getText()).isEqualTo("ana");
        String list = browser.findElement(By.id("agent-list")).getText();
        assertThat(list).contains("helper").contains(agent).doesNotContain("bens-private-agent").doesNotContain(bens);
        shot("02-agents");

        // another user's agent does not exist for this key, even by its id
        browser.get(fx.url("/#/agents/" + bens + "/memory"));
        assertThat(wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#app .error"))).getText())
                .contains("not found");
        assertThat(browser.getPageSource()).doesNotContain("bens-private-agent");
        shot("03-other-users-agent");

        memory();
        tools();
        conversation();
        context();
        archival();
        notes();
        browser.get(fx.url("/#/agents/" + agent + "/schedules"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("schedules"), "Nothing scheduled."));
        shot("11-schedules");
        browser.get(fx.url("/#/blocks"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#app h1"), "Shared blocks"));
        shot("12-shared-blocks");

        browser.manage().window().setSize(new Dimension(390, 844));
        browser.get(fx.url("/#/agents/" + agent + "/conversation"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("timeline"), "Miso the cat"));
        assertThat(horizontalOverflow()).as("the page fits a phone's width").isFalse();
        shot("13-phone-conversation");
        browser.get(fx.url("/#/agents/" + agent + "/memory"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".block[data-label=human]")));
        assertThat(horizontalOverflow()).isFalse();
        shot("14-phone-memory");
    }

    private void memory() {
        browser.get(fx.url("/#/agents"));
        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#agent-list .agent[data-id='" + agent + "']"))).click();
        WebElement human = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".block[data-label=human]")));
        assertThat(human.findElement(By.className("count")).getText()).isEqualTo("27/2000");
        assertThat(human.findElement(By.className("perm")).getText()).isEqualTo("read-write");
        // the bar is drawn to scale (27 of 2000 characters), its width set as the page's policy allows
        assertThat(human.findElement(By.cssSelector(".bar .fill")).getSize().getWidth())
                .isLessThan(human.findElement(By.className("bar")).getSize().getWidth() / 20);

        WebElement value = human.findElement(By.className("block-value"));
        value.clear();
        value.sendKeys("The user is Ana, a designer in Lisbon.");
        human.findElement(By.className("save")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".block[data-label=human] .status"), "Saved."));
        assertThat(fx.store.blocks().get(Scope.of("ana", agent), "human").orElseThrow().value())
                .isEqualTo("The user is Ana, a designer in Lisbon.");

        human = browser.findElement(By.cssSelector(".block[data-label=human]"));
        value = human.findElement(By.className("block-value"));
        value.clear();
        ((JavascriptExecutor) browser).executeScript(
                "arguments[0].value = 'x'.repeat(2001); arguments[0].dispatchEvent(new Event('input'));", value);
        assertThat(human.findElement(By.className("count")).getText()).isEqualTo("2001/2000");
        human.findElement(By.className("save")).click();
        assertThat(wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".block[data-label=human] .error")))
                .getText()).contains("limit of 2000");
        assertThat(fx.store.blocks().get(Scope.of("ana", agent), "human").orElseThrow().value())
                .isEqualTo("The user is Ana, a designer in Lisbon.");
        shot("04-memory-limit-refused");
    }

    private void tools() {
        browser.findElement(By.id("tablink-tools")).click();
        WebElement box = wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector(".requires-approval[data-tool=block]")));
        assertThat(box.isSelected()).isFalse();
        box.click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#tab-tools .status"), "calls wait for approval"));
        shot("05-tools");
    }

    private void conversation() {
        browser.findElement(By.id("tablink-conversation")).click();
        WebElement input = wait.until(ExpectedConditions.elementToBeClickable(By.id("chat-input")));
        input.sendKeys("Hello!", Keys.ENTER);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#timeline [data-type=assistant_message]"),
                "Hello Ana, nice to meet you. What shall we work on today?"));
        assertThat(browser.findElement(By.cssSelector("#timeline [data-type=reasoning_message]")).getText())
                .contains("The user greets me; I greet back.");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("turn-done"), "end_turn"));
        assertThat(browser.findElement(By.cssSelector("#timeline [data-type=user_message]")).getText()).contains("Hello!");
        shot("06-conversation-streamed");

        browser.findElement(By.id("chat-input")).sendKeys("I have a cat called Miso.", Keys.ENTER);
        WebElement approval = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("approval")));
        assertThat(approval.getText()).contains("block").contains("Ana has a cat called Miso.");
        assertThat(fx.store.blocks().get(Scope.of("ana", agent), "human").orElseThrow().value()).doesNotContain("Miso");
        shot("07-approval-pending");
        browser.findElement(By.id("approve")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("timeline"), "Noted: Miso the cat is in my memory now."));
        assertThat(browser.findElement(By.cssSelector("#timeline [data-type=tool_return_message]")).getText()).contains("success");
        assertThat(browser.findElements(By.id("approval"))).isEmpty();
        assertThat(fx.store.blocks().get(Scope.of("ana", agent), "human").orElseThrow().value()).endsWith("Ana has a cat called Miso.");
    }

    private void context() {
        browser.findElement(By.id("tablink-context")).click();
        WebElement parts = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("context-parts")));
        assertThat(parts.getText()).contains("System instructions").contains("Core memory blocks").contains("Tool definitions")
                .contains("Messages");
        assertThat(browser.findElement(By.id("context-total")).getText()).contains("of").contains("tokens");
        shot("08-context-window");
    }

    private void archival() {
        browser.findElement(By.id("tablink-archival")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("passages"), "Ana's cat Miso likes the balcony"));
        browser.findElement(By.id("archival-query")).sendKeys("balcony cat", Keys.ENTER);
        WebElement hit = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#search-results .hit")));
        assertThat(hit.getText()).contains("Ana's cat Miso likes the balcony").contains("bm25 #1").contains("vector #");
        assertThat(hit.findElement(By.className("num")).getText()).matches("[01]\\.\\d{4}");
        shot("09-archival-search");
    }

    private void notes() {
        browser.findElement(By.id("tablink-notes")).click();
        WebElement notes = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("notes")));
        assertThat(notes.getText()).contains("Ana prefers green tea in the afternoon").doesNotContain("Ben's private note");
        browser.findElement(By.id("note-query")).sendKeys("tea", Keys.ENTER);
        WebElement hit = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#note-results .hit")));
        assertThat(hit.getText()).contains("green tea").contains("bm25 #1");
        shot("10-notes-search");
    }

    private boolean horizontalOverflow() {
        return (Boolean) ((JavascriptExecutor) browser).executeScript(
                "return document.documentElement.scrollWidth > document.documentElement.clientWidth + 1;");
    }

    private void shot(String name) {
        try {
            Files.write(SHOTS.resolve(name + ".png"), browser.getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
