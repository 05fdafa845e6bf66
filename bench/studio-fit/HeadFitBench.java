import com.fasterxml.jackson.databind.node.TextNode;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.fitting.HeadFitter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The fitting alone, without the server or the model: a yes/no head on {@code n} unit vectors of 384 dimensions (the
 * bundled model's) drawn around two nearby centres, so that the classes overlap as mail embeddings do. Times three
 * fits after one warm-up fit (one fit, for more than 1,000 labels). Run with the jar's classes: java -cp "target/classes:$(cat cp.txt)"
 * bench/studio-fit/HeadFitBench.java [n...]
 */
public class HeadFitBench {
    public static void main(String[] args) {
        int[] sizes = args.length == 0
                ? new int[] {120, 5000}
                : java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        for (int n : sizes) {
            List<HeadFitter.Labelled> items = items(n, 384, new Random(n));
            int rounds = n > 1000 ? 1 : 3; // a large fit takes long enough to warm the JIT by itself
            if (rounds > 1) {
                fit(items);
            }
            long best = Long.MAX_VALUE;
            double accuracy = 0;
            for (int round = 0; round < rounds; round++) {
                long started = System.nanoTime();
                var outcome = fit(items);
                best = Math.min(best, System.nanoTime() - started);
                accuracy = ((HeadFitter.Fitted) outcome).head().facts().cvAccuracy();
            }
            System.out.printf(
                    "%d labels: best of %d fits %.2f s (cross-validated accuracy %.3f)%n",
                    n, rounds, best / 1e9, accuracy);
        }
    }

    static HeadFitter.Outcome fit(List<HeadFitter.Labelled> items) {
        return HeadFitter.fit(QuestionType.NOUL, List.of("false", "true"), items, "bench", Instant.now(), () -> false);
    }

    static List<HeadFitter.Labelled> items(int n, int dimension, Random random) {
        float[][] centres = new float[2][dimension];
        for (int j = 0; j < dimension; j++) {
            double shared = random.nextGaussian();
            centres[0][j] = (float) (shared + 0.3 * random.nextGaussian());
            centres[1][j] = (float) (shared + 0.3 * random.nextGaussian());
        }
        var items = new ArrayList<HeadFitter.Labelled>();
        for (int i = 0; i < n; i++) {
            int label = i % 3 == 0 ? 1 : 0;
            float[] v = new float[dimension];
            double norm = 0;
            for (int j = 0; j < dimension; j++) {
                v[j] = (float) (centres[label][j] + 0.6 * random.nextGaussian());
                norm += v[j] * v[j];
            }
            for (int j = 0; j < dimension; j++) {
                v[j] /= (float) Math.sqrt(norm);
            }
            items.add(new HeadFitter.Labelled(v, TextNode.valueOf(label == 1 ? "yes" : "no")));
        }
        return items;
    }
}
