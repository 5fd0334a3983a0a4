package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What every backend does with the images a user message carries: kept with the message, read back in order by
 * {@code get} and {@code list}, refused whole when one is over the store's limit. {@link MemoryStoreConformance} runs
 * it as a nested class.
 */
public abstract class MessageImageConformance {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope BEN = Scope.of("ben", "helper");
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, (byte) 0xff};

    /** The store under test, fresh for each test. */
    protected abstract MemoryStore store();

    @Test
    void imagesAreStoredWithTheirMessageAndReadBackInOrder() {
        MemoryStore store = store();
        ConversationMessage before = store.messages().append(ANA, NewMessage.user("s", "plain"));
        List<MessageImage> images = List.of(MessageImage.inline("image/png", PNG),
                MessageImage.url("https://example.com/cat.jpg"), MessageImage.inline("image/webp", new byte[] {1, 2, 3}));
        ConversationMessage sent = store.messages().append(ANA, NewMessage.user("s", "What is in these?", images));
        ConversationMessage after = store.messages().append(ANA, NewMessage.assistant("s", "A cat.", List.of()));
        store.messages().append(BEN, NewMessage.user("s", "ben's", List.of(MessageImage.inline("image/gif", new byte[] {7}))));

        assertThat(sent.images()).isEqualTo(images);
        assertThat(store.messages().get(ANA, sent.id()).orElseThrow()).isEqualTo(sent);
        List<ConversationMessage> listed = store.messages().list(ANA, MessageQuery.all());
        assertThat(listed).containsExactly(before, sent, after);
        assertThat(listed.get(0).images()).isEmpty();
        MessageImage.Inline first = (MessageImage.Inline) listed.get(1).images().getFirst();
        assertThat(first.mediaType()).isEqualTo("image/png");
        assertThat(Arrays.equals(first.data(), PNG)).isTrue();
        assertThat(listed.get(1).images().get(1)).isEqualTo(MessageImage.url("https://example.com/cat.jpg"));
        assertThat(store.messages().list(ANA, MessageQuery.all().newest(2))).containsExactly(sent, after);
        assertThat(store.messages().get(BEN, sent.id())).isEmpty();
        assertThat(store.messages().list(BEN, MessageQuery.all()).getFirst().images())
                .containsExactly(MessageImage.inline("image/gif", new byte[] {7}));
    }

    @Test
    void aMessageKeepsItsImagesWhenItLeavesTheContext() {
        MemoryStore store = store();
        ConversationMessage sent = store.messages().append(ANA, NewMessage.user("s", "look",
                List.of(MessageImage.inline("image/jpeg", new byte[] {9, 9}))));
        store.messages().markOutOfContext(ANA, List.of(sent.id()));
        assertThat(store.messages().get(ANA, sent.id()).orElseThrow().images())
                .containsExactly(MessageImage.inline("image/jpeg", new byte[] {9, 9}));
    }

    @Test
    void anImageOverTheStoresLimitIsRefusedAndNothingOfTheTurnIsStored() {
        MemoryStore store = store();
        long changes = store.changes().lastSeq();
        byte[] big = new byte[MemoryLimits.DEFAULT_MAX_IMAGE_BYTES + 1];
        Throwable e = catchThrowable(() -> store.messages().appendAll(ANA, List.of(
                NewMessage.user("s", "first"),
                NewMessage.user("s", "two images", List.of(MessageImage.inline("image/png", PNG),
                        MessageImage.inline("image/png", big))))));
        assertThat(e).isInstanceOf(IllegalArgumentException.class).hasMessage("image 2 of the message is "
                + big.length + " bytes; this store accepts at most " + MemoryLimits.DEFAULT_MAX_IMAGE_BYTES
                + " bytes per image (MemoryLimits). Send a smaller image.");
        assertThat(store.messages().list(ANA, MessageQuery.all())).isEmpty();
        assertThat(store.changes().lastSeq()).isEqualTo(changes);
    }

    @Test
    void malformedImagesAreRefusedBeforeAnythingIsStored() {
        assertThatThrownBy(() -> MessageImage.inline("image/bmp", PNG)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("image media type 'image/bmp' is not accepted; use one of image/png, image/jpeg, image/gif, image/webp");
        assertThatThrownBy(() -> MessageImage.inline("image/png", new byte[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an image needs data; this one is empty");
        assertThatThrownBy(() -> MessageImage.url("file:///etc/passwd")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("image url 'file:///etc/passwd' is not an absolute http(s) URL");
        assertThatThrownBy(() -> new NewMessage("s", MessageRole.ASSISTANT, "x", List.of(), Optional.empty(), Optional.empty(),
                List.of(MessageImage.inline("image/png", PNG)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("only user messages carry images, not ASSISTANT");
        assertThat(store().messages().list(ANA, MessageQuery.all())).isEmpty();
    }
}
