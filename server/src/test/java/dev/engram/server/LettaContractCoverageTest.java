package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.server.LettaContract.Operation;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract, counted: every self-hosted operation of Letta's V1 contract (all 302 but the 71 tagged with one of
 * Letta Cloud's tags, {@code templates}, {@code projects}, {@code pipelines}, {@code feeds},
 * {@code clientSideAccessTokens}, {@code environments}, {@code deployments}, or an {@code _internal_*} tag: that leaves
 * {@value #SELF_HOSTED} operations) is either a route of the server's table ({@link EngramServer#routes()}, the list the
 * routing is built from; method and path template, parameter names and a trailing slash ignored) or an entry of
 * {@link UnsupportedOperations#ALL}, never both, and that table names only operations of the contract. Prints
 * {@code implemented X of N}. Skipped when the contract's file is not in this checkout.
 */
class LettaContractCoverageTest {
    /** The contract's operations without Letta Cloud's and the internal ones. */
    static final int SELF_HOSTED = 231;

    @TempDir
    Path dir;

    private static String key(String method, String path) {
        return method + " " + PathTemplate.of(path).normalized();
    }

    @Test
    void everySelfHostedOperationIsARouteOrAnExplainedUnsupportedOneNeverBoth() {
        Optional<Path> file = LettaContract.file();
        assumeTrue(file.isPresent(), "skipped: Letta's contract shared/letta/openapi.json is not in this checkout "
                + "(or give -Dengram.lettaContract=PATH)");
        List<Operation> all = LettaContract.operations(LettaContract.read(file.get()));
        List<Operation> selfHosted = all.stream().filter(Operation::selfHosted).toList();
        assertThat(selfHosted).as("the self-hosted operations of the contract").hasSize(SELF_HOSTED);
        Set<String> routes;
        try (ServerFixture fx = new ServerFixture(dir)) {
            routes = fx.server.routes().stream().map(r -> key(r.method().text(), r.path())).collect(Collectors.toSet());
        }
        Set<String> unsupported = UnsupportedOperations.ALL.stream().map(u -> key(u.method().text(), u.path()))
                .collect(Collectors.toSet());
        assertThat(unsupported).as("the unsupported table has no entry twice").hasSize(UnsupportedOperations.ALL.size());

        List<String> neither = selfHosted.stream().filter(o -> !routes.contains(key(o.method(), o.path()))
                && !unsupported.contains(key(o.method(), o.path()))).map(Operation::name).toList();
        List<String> both = selfHosted.stream().filter(o -> routes.contains(key(o.method(), o.path()))
                && unsupported.contains(key(o.method(), o.path()))).map(Operation::name).toList();
        Set<String> contract = selfHosted.stream().map(o -> key(o.method(), o.path())).collect(Collectors.toSet());
        List<String> strangers = UnsupportedOperations.ALL.stream().filter(u -> !contract.contains(key(u.method().text(),
                u.path()))).map(u -> u.method().text() + " " + u.path()).toList();
        long implemented = selfHosted.stream().filter(o -> routes.contains(key(o.method(), o.path()))).count();
        System.out.printf("implemented %d of %d self-hosted operations of Letta's contract (%d answer an explained 501)%n",
                implemented, selfHosted.size(), UnsupportedOperations.ALL.size());

        assertThat(neither).as("operations that are neither a route nor in UnsupportedOperations.ALL (add a route, or "
                + "an entry saying why and what to use instead)").isEmpty();
        assertThat(both).as("operations that are a route and still in UnsupportedOperations.ALL (remove the entry, "
                + "then regenerate the README's list: -Dengram.updateReadme=true)").isEmpty();
        assertThat(strangers).as("entries of UnsupportedOperations.ALL that are no self-hosted operation of the contract")
                .isEmpty();
        assertThat(implemented + unsupported.size()).isEqualTo(SELF_HOSTED);
    }

    @Test
    void lettaCloudsOperationsAndNoSelfHostedOneAnswerAsLettaClouds() {
        Optional<Path> file = LettaContract.file();
        assumeTrue(file.isPresent(), "skipped: Letta's contract shared/letta/openapi.json is not in this checkout");
        List<Operation> all = LettaContract.operations(LettaContract.read(file.get()));
        assertThat(all).hasSize(302);
        assertThat(all.stream().filter(o -> !o.selfHosted())).as("Letta Cloud's and internal operations")
                .hasSize(302 - SELF_HOSTED).allMatch(o -> Unsupported.cloud(o.path()), "a path Unsupported.cloud knows");
        assertThat(all.stream().filter(Operation::selfHosted)).noneMatch(o -> Unsupported.cloud(o.path()),
                "a path Unsupported.cloud takes for Letta Cloud's");
    }
}
