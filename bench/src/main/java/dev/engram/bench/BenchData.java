package dev.engram.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the search benchmarks share ({@link SearchSpeed}, {@link ScopeSpeed}, {@link ScaleSearch}, {@link EmbedSpeed}):
 * real passages and queries from the shared data sets, a passage's number in its text, vectors' dot products and
 * perturbed copies, sizes on disk.
 */
final class BenchData {
    /** A passage's number, at the end of its text: {@code "... (p42)"}. */
    private static final Pattern SUFFIX = Pattern.compile("\\(p(\\d+)\\)\\s*$");
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    /** The noise added to each dimension of a real vector before renormalising, in {@link #perturbed}. */
    private static final double NOISE = 0.02;

    private BenchData() {
    }

    /** Real sentences: SciFact sentences and consecutive sentence pairs, and LoCoMo turns. */
    static List<String> loadPassages(Path data, int n) throws IOException {
        Set<String> out = new LinkedHashSet<>();
        List<String> pairs = new ArrayList<>();
        List<String> triples = new ArrayList<>();
        try (Stream<String> lines = Files.lines(data.resolve("scifact/corpus.jsonl"), StandardCharsets.UTF_8)) {
            for (String line : (Iterable<String>) lines::iterator) {
                JsonNode doc = MAPPER.readTree(line);
                String[] sentences = doc.path("text").asString("").split("(?<=[.!?])\\s+");
                for (int i = 0; i < sentences.length; i++) {
                    if (sentences[i].length() > 30) {
                        out.add(sentences[i]);
                    }
                    if (i + 1 < sentences.length) {
                        pairs.add(sentences[i] + " " + sentences[i + 1]);
                    }
                    if (i + 2 < sentences.length) {
                        triples.add(sentences[i] + " " + sentences[i + 1] + " " + sentences[i + 2]);
                    }
                }
            }
        }
        Path locomo = data.resolve("locomo/locomo-dev.json");
        if (Files.isRegularFile(locomo)) {
            for (JsonNode conv : MAPPER.readTree(locomo.toFile())) {
                for (String name : conv.path("conversation").propertyNames()) {
                    JsonNode session = conv.path("conversation").get(name);
                    if (session.isArray()) {
                        session.forEach(t -> out.add(t.path("speaker").asString() + ": " + t.path("text").asString()));
                    }
                }
            }
        }
        pairs.addAll(triples);
        for (String p : pairs) {
            if (out.size() >= n) {
                break;
            }
            out.add(p);
        }
        List<String> list = new ArrayList<>(out);
        return list.subList(0, Math.min(n, list.size()));
    }

    static List<String> loadQueries(Path data, int n) throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<String> lines = Files.lines(data.resolve("scifact/queries.jsonl"), StandardCharsets.UTF_8)) {
            for (String line : (Iterable<String>) lines::iterator) {
                out.add(MAPPER.readTree(line).path("text").asString());
                if (out.size() >= n) {
                    break;
                }
            }
        }
        return out;
    }

    /** The number a passage's text ends with ({@code "(p42)"}); an error for a text without one. */
    static int passageId(String text) {
        Matcher m = SUFFIX.matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("passage without id: " + text);
        }
        return Integer.parseInt(m.group(1));
    }

    /** The dot product of two vectors of one length (their cosine when both are unit vectors). */
    static double dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    /**
     * Passage {@code id}'s vector: a copy of real vector {@code id % base.length} with Gaussian noise of {@value #NOISE}
     * a dimension, renormalised; the same for the same {@code id} on every call. Real data's neighbourhoods, at any
     * count, without keeping the copies.
     */
    static float[] perturbed(float[][] base, int id) {
        float[] b = base[id % base.length];
        Random r = new Random(id * 2654435761L);
        float[] v = new float[b.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = b[i] + (float) (r.nextGaussian() * NOISE);
        }
        double norm = Math.sqrt(dot(v, v));
        for (int i = 0; i < v.length; i++) {
            v[i] /= (float) norm;
        }
        return v;
    }

    /** The bytes of every file under {@code dir}; a file deleted while they are counted (a merge's) counts nothing. */
    static long bytesOnDisk(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0;
                }
            }).sum();
        }
    }

    /** {@link #bytesOnDisk} in megabytes, for a table: {@code "12.3 MB"}. */
    static String megabytes(Path dir) throws IOException {
        return String.format(Locale.ROOT, "%.1f MB", bytesOnDisk(dir) / 1e6);
    }
}
