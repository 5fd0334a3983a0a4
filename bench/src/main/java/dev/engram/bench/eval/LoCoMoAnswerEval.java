package dev.engram.bench.eval;

import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * End-to-end question answering on LoCoMo, as the published memory systems report it: the conversations are ingested
 * as {@link LoCoMoEval} ingests them, and for each question with a gold answer (categories 1 to 4; the adversarial
 * questions of category 5 have none, and the Mem0 paper leaves them out too) the top {@code k} messages are retrieved
 * from its conversation's memory, an answer model answers from them, and a judge model labels the answer CORRECT or
 * WRONG against the gold answer (an LLM judge as in the Mem0 paper, asked for JSON). The report gives the accuracy
 * overall and per category, the context tokens the hits cost, and the latency of retrieval and of answering.
 *
 * <p><b>No question is dropped silently.</b> A judge reply that does not parse is sent back to the judge once with the
 * error; if the second reply fails too, or the answer model fails, the question counts as not correct and is listed
 * in {@link Report#failures()} with its error.
 */
public final class LoCoMoAnswerEval {
    /** The gold-answer categories the eval asks (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop). */
    public static final Set<Integer> ANSWERED_CATEGORIES = Set.of(1, 2, 3, 4);

    /**
     * What to ask.
     *
     * @param k             how many messages are retrieved for each question (1 to 100)
     * @param mode          how they are retrieved
     * @param conversations the {@code sample_id}s of the conversations to ask about; empty for all
     * @param maxQuestions  the most questions asked (the first ones of the chosen conversations), at least 1
     */
    public record Options(int k, SearchMode mode, Set<String> conversations, int maxQuestions) {
        public Options {
            if (k < 1 || k > 100) {
                throw new IllegalArgumentException("k must be between 1 and 100, got " + k);
            }
            Objects.requireNonNull(mode, "mode");
            conversations = Set.copyOf(conversations);
            if (maxQuestions < 1) {
                throw new IllegalArgumentException("the most questions must be at least 1, got " + maxQuestions);
            }
        }

        /** Ten hybrid hits per question, every conversation, every question. */
        public static Options defaults() {
            return new Options(10, SearchMode.HYBRID, Set.of(), Integer.MAX_VALUE);
        }
    }

    /** Where a question failed. */
    public enum Stage {
        /** The answer model failed (an error from its provider). */
        ANSWER,
        /** The judge's reply could not be read, also when asked again, or the judge model failed. */
        JUDGE
    }

    /** A question that could not be scored, counted as not correct. */
    public record Failure(String conversation, String question, Stage stage, String error) {
    }

    /** One category's score: {@code correct} of {@code questions}, {@code failed} of them not scored. */
    public record Score(int questions, int correct, int failed) {
        public double accuracy() {
            return questions == 0 ? 0 : correct / (double) questions;
        }
    }

    /**
     * The result.
     *
     * @param skipped         questions not asked: adversarial, or without a gold answer or a question
     * @param beyondLimit     questions not asked because of {@link Options#maxQuestions()}
     * @param overall         every asked question's score
     * @param byCategory      the scores per category
     * @param failures        every question that could not be scored, with its error
     * @param retrieval       the context tokens of the {@code k} hits and the search latency
     * @param answerP50Millis the median latency of the answer model
     * @param answerP95Millis its 95th percentile
     */
    public record Report(int conversations, int turns, int skipped, int beyondLimit, Score overall, Map<Integer, Score> byCategory,
            List<Failure> failures, RetrievalCost retrieval, double answerP50Millis, double answerP95Millis,
            double indexSeconds) {
        public Report {
            byCategory = Map.copyOf(byCategory);
            failures = List.copyOf(failures);
        }
    }

    private LoCoMoAnswerEval() {
    }

    /**
     * Runs the eval; {@code progress} hears of the index being built, then {@code questionsDone} of the questions.
     *
     * @throws IllegalArgumentException if {@code options} names a conversation the file does not hold
     */
    public static Report run(Path file, EvalSetup setup, ChatModel answerModel, ChatModel judgeModel, Options options,
            MemorySearch.ProgressListener indexing, MemorySearch.ProgressListener questionsDone) {
        Objects.requireNonNull(answerModel, "answer model");
        Objects.requireNonNull(judgeModel, "judge model");
        try (LoCoMoCorpus corpus = LoCoMoCorpus.load(file, LoCoMoEval.TurnFormat.SPEAKER_TEXT_CAPTION, options.conversations())) {
            List<LoCoMoCorpus.Question> eligible = corpus.questions.stream()
                    .filter(q -> ANSWERED_CATEGORIES.contains(q.category()) && !q.text().isBlank() && !q.answer().isBlank())
                    .toList();
            List<LoCoMoCorpus.Question> asked = eligible.stream().limit(options.maxQuestions()).toList();
            int skipped = corpus.questions.size() - eligible.size();
            long start = System.nanoTime();
            try (MemorySearch search = setup.openSearch(corpus.store)) {
                search.reindex(indexing);
                double indexSeconds = (System.nanoTime() - start) / 1e9;
                RetrievalCost.Meter retrieval = new RetrievalCost.Meter(options.k(), options.k());
                List<Double> answerMillis = new ArrayList<>();
                Map<Integer, int[]> counts = new TreeMap<>();
                List<Failure> failures = new ArrayList<>();
                int done = 0;
                for (LoCoMoCorpus.Question q : asked) {
                    long began = System.nanoTime();
                    List<SearchHit> hits = search.search(SearchRequest.builder(q.scope(), q.text())
                            .domains(SearchDomain.CONVERSATIONS).k(options.k()).mode(options.mode())
                            .fusion(setup.fusion()).build());
                    retrieval.record(hits, System.nanoTime() - began);
                    int[] c = counts.computeIfAbsent(q.category(), x -> new int[3]);
                    c[0]++;
                    String conversation = q.scope().agentId();
                    String answer;
                    began = System.nanoTime();
                    try {
                        answer = answerModel.chat(ChatRequest.of(List.of(new ChatMessage.System(AnswerPrompts.ANSWER_SYSTEM),
                                new ChatMessage.User(AnswerPrompts.question(q.text(), hits))))).message().text();
                        answerMillis.add((System.nanoTime() - began) / 1e6);
                    } catch (RuntimeException e) {
                        failures.add(new Failure(conversation, q.text(), Stage.ANSWER, message(e)));
                        c[2]++;
                        questionsDone.progress(++done, asked.size());
                        continue;
                    }
                    try {
                        if (judge(judgeModel, q, answer)) {
                            c[1]++;
                        }
                    } catch (AnswerPrompts.ParseException | RuntimeException e) {
                        failures.add(new Failure(conversation, q.text(), Stage.JUDGE, message(e)));
                        c[2]++;
                    }
                    questionsDone.progress(++done, asked.size());
                }
                Map<Integer, Score> byCategory = new LinkedHashMap<>();
                int[] all = new int[3];
                counts.forEach((category, c) -> {
                    byCategory.put(category, new Score(c[0], c[1], c[2]));
                    for (int i = 0; i < 3; i++) {
                        all[i] += c[i];
                    }
                });
                double[] ms = answerMillis.stream().mapToDouble(Double::doubleValue).toArray();
                return new Report(corpus.conversations, corpus.turns, skipped, eligible.size() - asked.size(), new Score(all[0], all[1], all[2]), byCategory,
                        failures, retrieval.result(), RetrievalCost.percentile(ms, 50), RetrievalCost.percentile(ms, 95),
                        indexSeconds);
            }
        }
    }

    /** The judge's verdict, asking again once with the error when its reply cannot be read. */
    private static boolean judge(ChatModel judge, LoCoMoCorpus.Question q, String answer) throws AnswerPrompts.ParseException {
        List<ChatMessage> conversation = new ArrayList<>(List.of(new ChatMessage.System(AnswerPrompts.JUDGE_SYSTEM),
                new ChatMessage.User(AnswerPrompts.judge(q.text(), q.answer(), answer))));
        String reply = judge.chat(ChatRequest.of(conversation)).message().text();
        try {
            return AnswerPrompts.verdict(reply);
        } catch (AnswerPrompts.ParseException first) {
            conversation.add(ChatMessage.Assistant.text(reply));
            conversation.add(new ChatMessage.User(AnswerPrompts.retry(first.getMessage())));
            String again = judge.chat(ChatRequest.of(conversation)).message().text();
            try {
                return AnswerPrompts.verdict(again);
            } catch (AnswerPrompts.ParseException second) {
                throw new AnswerPrompts.ParseException("the judge's reply could not be read, also when asked again with "
                        + "the error: " + second.getMessage());
            }
        }
    }

    private static String message(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
