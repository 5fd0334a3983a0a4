package dev.engram.cli;

import dev.engram.memory.ApiKey;
import dev.engram.memory.KeyStore;
import dev.engram.memory.NotFoundException;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram keys create|list|revoke}: the API keys of the Engram server, each bound to a user or an admin key. */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = {"API keys of the Engram server: each acts as one user (or is an admin key).",
                "A key is shown once, when it is created; only its hash is stored."},
        subcommands = {KeysCommands.Create.class, KeysCommands.ListKeys.class, KeysCommands.Revoke.class})
final class KeysCommands extends GroupCommand {

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a key for a user (or an admin key) and print it once.")
    static final class Create extends BaseCommand {
        @ArgGroup(exclusive = true, multiplicity = "1")
        Owner owner;

        static final class Owner {
            @Option(names = "--user", paramLabel = "ID", description = "The user the key acts as.")
            String user;

            @Option(names = "--admin", description = "An admin key, bound to no user.")
            boolean admin;
        }

        @Option(names = "--name", paramLabel = "TEXT", defaultValue = "", description = "What the key is for.")
        String name;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                KeyStore.CreatedKey created = engine.store().keys().create(Optional.ofNullable(owner.user), name);
                out().println(created.secret());
                err().println("Created " + created.key().id() + (owner.admin ? " (admin)" : " for user '" + owner.user + "'")
                        + ". Keep the key now: it is stored only as a hash and cannot be shown again.");
            }
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the keys (their ids, users and names; never the keys).")
    static final class ListKeys extends BaseCommand {
        @Override
        int run() {
            try (Engine engine = root().engine()) {
                for (ApiKey k : engine.store().keys().list()) {
                    out().printf(Locale.ROOT, "%s  %-16s %s  %s%n", k.id(), k.userId().map(u -> "user " + u).orElse("admin"),
                            k.createdAt(), k.name());
                }
            }
            return 0;
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Revoke a key: requests with it are refused from now on.")
    static final class Revoke extends BaseCommand {
        @Parameters(paramLabel = "ID")
        String id;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                if (!engine.store().keys().revoke(id)) {
                    throw new NotFoundException("There is no key '" + id + "'; list them with 'engram keys list'");
                }
                out().println("Revoked " + id + ".");
            }
            return 0;
        }
    }
}
