import java.io.*;
import java.util.*;
import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.*;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.metric.Metric.AggregateFunction;
import java.nio.charset.StandardCharsets;

public class RunArx {
    public static void main(String[] a) throws Exception {
        String dir = a[0], table = a[1], metricName = a[2];
        double supp = Double.parseDouble(a[3]);
        boolean ldiv = a[4].equals("1");
        String out = a.length > 5 ? a[5] : null;
        long t0 = System.nanoTime();
        String[] qis = {"sex","age","race","marital-status","education","native-country","workclass","salary-class"};
        Data data = Data.create(table, StandardCharsets.UTF_8, ';');
        for (String q : qis) {
            data.getDefinition().setAttributeType(q, Hierarchy.create(dir + "/adult_hierarchy_" + q + ".csv", StandardCharsets.UTF_8, ';'));
        }
        data.getDefinition().setAttributeType("occupation", ldiv ? AttributeType.SENSITIVE_ATTRIBUTE : AttributeType.INSENSITIVE_ATTRIBUTE);
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new KAnonymity(5));
        if (ldiv) config.addPrivacyModel(new DistinctLDiversity("occupation", 2));
        config.setSuppressionLimit(supp);
        config.setQualityModel(metricName.equals("Loss") ? Metric.createLossMetric(AggregateFunction.ARITHMETIC_MEAN)
                                                        : Metric.createPrecisionMetric(AggregateFunction.ARITHMETIC_MEAN));
        ARXAnonymizer anonymizer = new ARXAnonymizer();
        ARXResult result = anonymizer.anonymize(data, config);
        ARXLattice.ARXNode node = result.getGlobalOptimum();
        StringBuilder sb = new StringBuilder();
        int[] tr = node.getTransformation();
        String[] names = node.getQuasiIdentifyingAttributes();
        Map<String,Integer> lv = new HashMap<>();
        for (int i = 0; i < names.length; i++) lv.put(names[i], tr[i]);
        for (String q : qis) sb.append(lv.get(q)).append(",");
        if (out != null) result.getOutput(false).save(out, ';');
        long t1 = System.nanoTime();
        System.out.println(metricName + " supp=" + supp + " ldiv=" + ldiv + " levels=[" + sb + "] loss=" + node.getHighestScore() + " checked=" + result.getLattice().getSize() + " time=" + (t1 - t0) / 1e9);
    }
}
