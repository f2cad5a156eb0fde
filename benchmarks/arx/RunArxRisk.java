import java.nio.charset.StandardCharsets;
import java.util.*;
import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.*;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.metric.Metric.AggregateFunction;

/** ARX 3.9's optimum under a risk-based privacy model (the golden values of tests/test_risk_targets.py).
 *  args: dir table.csv model threshold suppression [extra...]; model: average | average3 (avg, highest,
 *  records at risk) | uniqueness | population-MODEL (PITMAN, ZAYATZ, SNB, DANKAR; a[5] = population size). QIs and hierarchies (dir/adult_hierarchy_Q.csv) as RunArx; Loss metric
 *  (arithmetic mean); prints the optimum's levels and the output's class sizes. */
public class RunArxRisk {
    public static void main(String[] a) throws Exception {
        String dir = a[0], table = a[1], model = a[2];
        double threshold = Double.parseDouble(a[3]), supp = Double.parseDouble(a[4]);
        String[] qis = {"sex","age","race","marital-status","education","native-country","workclass"};
        Data data = Data.create(table, StandardCharsets.UTF_8, ';');
        for (String q : qis) {
            data.getDefinition().setAttributeType(q, Hierarchy.create(dir + "/adult_hierarchy_" + q + ".csv", StandardCharsets.UTF_8, ';'));
        }
        data.getDefinition().setAttributeType("occupation", AttributeType.INSENSITIVE_ATTRIBUTE);
        data.getDefinition().setAttributeType("salary-class", AttributeType.INSENSITIVE_ATTRIBUTE);
        ARXConfiguration config = ARXConfiguration.create();
        if (model.equals("average")) config.addPrivacyModel(new AverageReidentificationRisk(threshold));
        else if (model.equals("average3")) config.addPrivacyModel(new AverageReidentificationRisk(threshold,
                Double.parseDouble(a[5]), Double.parseDouble(a[6])));
        else if (model.startsWith("population-")) config.addPrivacyModel(new PopulationUniqueness(threshold,
                org.deidentifier.arx.risk.RiskModelPopulationUniqueness.PopulationUniquenessModel.valueOf(model.substring(11)),
                ARXPopulationModel.create(Long.parseLong(a[5])),
                ARXSolverConfiguration.create().setDeterministic(true).iterationsPerTry(15)));
        else config.addPrivacyModel(new SampleUniqueness(threshold));
        config.setSuppressionLimit(supp);
        config.setQualityModel(Metric.createLossMetric(AggregateFunction.ARITHMETIC_MEAN));
        ARXResult result = new ARXAnonymizer().anonymize(data, config);
        ARXLattice.ARXNode node = result.getGlobalOptimum();
        int[] tr = node.getTransformation();
        String[] names = node.getQuasiIdentifyingAttributes();
        Map<String,Integer> lv = new HashMap<>();
        for (int i = 0; i < names.length; i++) lv.put(names[i], tr[i]);
        StringBuilder sb = new StringBuilder();
        for (String q : qis) sb.append(lv.get(q)).append(",");
        DataHandle out = result.getOutput(false);
        int suppressed = 0;
        for (int r = 0; r < out.getNumRows(); r++) if (out.isOutlier(r)) suppressed++;
        System.out.println("levels=[" + sb + "] suppressed=" + suppressed + " loss=" + node.getHighestScore());
    }
}
