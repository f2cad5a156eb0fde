import java.io.*;
import java.nio.charset.StandardCharsets;
import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.aggregates.StatisticsQuality;
import org.deidentifier.arx.aggregates.quality.*;
import org.deidentifier.arx.criteria.*;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.metric.Metric.AggregateFunction;

/**
 * ARX 3.9's quality figures (org.deidentifier.arx.aggregates.StatisticsQuality) of one anonymization:
 * k-anonymity with a suppression limit, Loss metric (arithmetic mean), ARX's global optimum; the output is
 * saved (';'-separated) and every quality measure printed, one line per figure:
 * "measure<TAB>column (or *)<TAB>value". Columns are ARX's default data type (string).
 *
 *   java -cp CLASSES:JARS:. RunArxQuality HIERARCHY_DIR TABLE K SUPPRESSION OUT QI...
 * with HIERARCHY_DIR/<qi>.csv the hierarchies; other columns insensitive.
 */
public class RunArxQuality {
    public static void main(String[] a) throws Exception {
        String dir = a[0], table = a[1], out = a[4];
        int k = Integer.parseInt(a[2]);
        double supp = Double.parseDouble(a[3]);
        String[] qis = java.util.Arrays.copyOfRange(a, 5, a.length);
        Data data = Data.create(table, StandardCharsets.UTF_8, ';');
        DataHandle h = data.getHandle();
        for (int c = 0; c < h.getNumColumns(); c++) {
            data.getDefinition().setAttributeType(h.getAttributeName(c), AttributeType.INSENSITIVE_ATTRIBUTE);
        }
        for (String q : qis) {
            data.getDefinition().setAttributeType(q, Hierarchy.create(dir + "/" + q + ".csv", StandardCharsets.UTF_8, ';'));
        }
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new KAnonymity(k));
        config.setSuppressionLimit(supp);
        config.setQualityModel(Metric.createLossMetric(AggregateFunction.ARITHMETIC_MEAN));
        ARXResult result = new ARXAnonymizer().anonymize(data, config);
        ARXLattice.ARXNode node = result.getGlobalOptimum();
        DataHandle output = result.getOutput(node, false);
        output.save(out, ';');
        StringBuilder levels = new StringBuilder();
        String[] names = node.getQuasiIdentifyingAttributes();
        int[] tr = node.getTransformation();
        for (int i = 0; i < names.length; i++) levels.append(names[i]).append("=").append(tr[i]).append(" ");
        System.out.println("# k=" + k + " suppression=" + supp + " levels: " + levels.toString().trim());
        StatisticsQuality q = output.getStatistics().getQualityStatistics();
        col("granularity", q.getGranularity(), qis);
        col("generalization_intensity", q.getGeneralizationIntensity(), qis);
        col("non_uniform_entropy", q.getNonUniformEntropy(), qis);
        col("attribute_level_squared_error", q.getAttributeLevelSquaredError(), qis);
        col("missings", q.getMissings(), qis);
        row("aecs", q.getAverageClassSize());
        row("ambiguity", q.getAmbiguity());
        row("discernibility", q.getDiscernibility());
        row("sse_sst", q.getSSESST());
        row("record_level_squared_error", q.getRecordLevelSquaredError());
    }

    static void col(String name, QualityMeasureColumnOriented m, String[] qis) {
        System.out.println(name + "\t*\t" + m.getArithmeticMean());
        for (String q : qis) System.out.println(name + "\t" + q + "\t" + m.getValue(q));
    }

    static void row(String name, QualityMeasureRowOriented m) {
        System.out.println(name + "\t*\t" + m.getValue());
    }
}
