import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.deidentifier.arx.DataType;
import org.deidentifier.arx.aggregates.HierarchyBuilderDate;
import org.deidentifier.arx.aggregates.HierarchyBuilderDate.Granularity;
import org.deidentifier.arx.aggregates.HierarchyBuilderGroupingBased;
import org.deidentifier.arx.aggregates.HierarchyBuilderIntervalBased;
import org.deidentifier.arx.aggregates.HierarchyBuilderIntervalBased.Range;
import org.deidentifier.arx.aggregates.HierarchyBuilderOrderBased;
import org.deidentifier.arx.aggregates.HierarchyBuilderRedactionBased;
import org.deidentifier.arx.aggregates.HierarchyBuilderRedactionBased.Order;

/**
 * ARX 3.9's hierarchy builders (org.deidentifier.arx.aggregates, github:arx-deidentifier/arx commit aacd487)
 * run on one column of a table; the hierarchy (HierarchyBuilder*.build(data).getHierarchy()) is printed as
 * ';'-separated CSV, one row per distinct value, in ARX's row order. The golden files of
 * tests/data/arx_hierarchies/ were made with it (their PROVENANCE.md lists every command).
 *
 * Build (ARX's aggregates package and what it reaches, from the source tree, without Maven):
 *   G=/work/.mirror/arx-deidentifier+arx/repo   (fetch github:arx-deidentifier/arx)
 *   git --git-dir=$G archive HEAD src | tar -x -C ARX
 *   for f in $(git --git-dir=$G ls-tree -r --name-only HEAD lib | grep '\.jar$'); do
 *     mkdir -p ARX/$(dirname $f); git --git-dir=$G show HEAD:$f > ARX/$f || rm ARX/$f; done
 *     (hadoop-core, pdfbox-app and poi-ooxml-schemas are absent from the snapshot; nothing here reaches them)
 *   JARS=$(find ARX/lib/ant -name '*.jar' | tr '\n' ':')
 *   javac -nowarn -cp "$JARS" -sourcepath ARX/src/main -d ARX/classes benchmarks/arx/RunArxHierarchy.java
 *   TZ=UTC java -Duser.language=en -Duser.country=US -cp "ARX/classes:$JARS" RunArxHierarchy \
 *       TABLE COLUMN BUILDER key=value...
 * (javac -sourcepath compiles only the 90 classes the driver reaches, about 17 s.)
 *
 * TABLE is a CSV file (',' or ';', from its header; double quotes stripped); COLUMN's distinct non-empty
 * values in order of first appearance are the data given to the builder. BUILDER and its keys:
 *   interval  type=integer|decimal  intervals=MIN:MAX[,MIN:MAX...]  levels=G[+G...][/G[+G...]...]
 *             [lower=SNAP:CODING:MIN] [upper=SNAP:CODING:MAX]
 *       HierarchyBuilderIntervalBased.create(type, Range(lower), Range(upper)); addInterval(min, max) each;
 *       getLevel(i).addGroup(G) each; aggregate function createIntervalFunction(true, false): "[min, max[".
 *   order     type=integer|string  order=natural|FILE  levels=...
 *       HierarchyBuilderOrderBased.create(type, true) (natural order of the type) or create(type, String[])
 *       (FILE: one value a line); getLevel(i).addGroup(G); default set function "{a, b}".
 *   redaction [align=left|right] [redact=left|right] [padding=C] [char=C]
 *       HierarchyBuilderRedactionBased.create(alignmentOrder, redactionOrder, padding, redaction);
 *       defaults as ARX's: LEFT_TO_RIGHT alignment, RIGHT_TO_LEFT redaction, '*'.
 *   date      format=PATTERN  granularities=G[,G...]  (HierarchyBuilderDate.create(DataType.createDate(
 *             PATTERN), TimeZone UTC, new Format(), granularities), Granularity names as ARX's enum)
 */
public class RunArxHierarchy {
    public static void main(String[] a) throws Exception {
        String[] data = distinct(a[0], a[1]);
        Map<String, String> kv = new HashMap<>();
        for (int i = 3; i < a.length; i++) {
            kv.put(a[i].substring(0, a[i].indexOf('=')), a[i].substring(a[i].indexOf('=') + 1));
        }
        String[][] h;
        switch (a[2]) {
            case "interval": h = kv.get("type").equals("integer") ? intervalLong(data, kv) : intervalDouble(data, kv); break;
            case "order": h = order(data, kv); break;
            case "redaction": h = redaction(data, kv); break;
            case "date": h = date(data, kv); break;
            default: throw new IllegalArgumentException("builder " + a[2]);
        }
        StringBuilder sb = new StringBuilder();
        for (String[] row : h) sb.append(String.join(";", row)).append('\n');
        System.out.print(sb);
    }

    static String[] distinct(String file, String column) throws IOException {
        List<String> lines = Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8);
        String sep = lines.get(0).contains(";") ? ";" : ",";
        List<String> header = Arrays.asList(lines.get(0).replace("\"", "").split(sep, -1));
        int c = header.indexOf(column);
        LinkedHashSet<String> out = new LinkedHashSet<>();
        for (String line : lines.subList(1, lines.size())) {
            String v = line.split(sep, -1)[c].replace("\"", "");
            if (!v.isEmpty() && !v.equals("NA")) out.add(v);
        }
        return out.toArray(new String[0]);
    }

    static <T> void levels(HierarchyBuilderGroupingBased<T> b, String spec) {
        String[] levels = spec.split("/");
        for (int i = 0; i < levels.length; i++) {
            for (String g : levels[i].split("\\+")) b.getLevel(i).addGroup(Integer.parseInt(g));
        }
    }

    static String[][] intervalLong(String[] data, Map<String, String> kv) {
        Range<Long> lower = new Range<Long>(null, null, null), upper = new Range<Long>(null, null, null);
        if (kv.containsKey("lower")) { String[] r = kv.get("lower").split(":"); lower = new Range<Long>(Long.parseLong(r[0]), Long.parseLong(r[1]), Long.parseLong(r[2])); }
        if (kv.containsKey("upper")) { String[] r = kv.get("upper").split(":"); upper = new Range<Long>(Long.parseLong(r[0]), Long.parseLong(r[1]), Long.parseLong(r[2])); }
        HierarchyBuilderIntervalBased<Long> b = HierarchyBuilderIntervalBased.create(DataType.INTEGER, lower, upper);
        b.setAggregateFunction(DataType.INTEGER.createAggregate().createIntervalFunction(true, false));
        for (String iv : kv.get("intervals").split(",")) {
            String[] mm = iv.split(":");
            b.addInterval(Long.parseLong(mm[0]), Long.parseLong(mm[1]));
        }
        if (kv.containsKey("levels")) levels(b, kv.get("levels"));
        return b.build(data).getHierarchy();
    }

    static String[][] intervalDouble(String[] data, Map<String, String> kv) {
        Range<Double> lower = new Range<Double>(null, null, null), upper = new Range<Double>(null, null, null);
        if (kv.containsKey("lower")) { String[] r = kv.get("lower").split(":"); lower = new Range<Double>(Double.parseDouble(r[0]), Double.parseDouble(r[1]), Double.parseDouble(r[2])); }
        if (kv.containsKey("upper")) { String[] r = kv.get("upper").split(":"); upper = new Range<Double>(Double.parseDouble(r[0]), Double.parseDouble(r[1]), Double.parseDouble(r[2])); }
        HierarchyBuilderIntervalBased<Double> b = HierarchyBuilderIntervalBased.create(DataType.DECIMAL, lower, upper);
        b.setAggregateFunction(DataType.DECIMAL.createAggregate().createIntervalFunction(true, false));
        for (String iv : kv.get("intervals").split(",")) {
            String[] mm = iv.split(":");
            b.addInterval(Double.parseDouble(mm[0]), Double.parseDouble(mm[1]));
        }
        if (kv.containsKey("levels")) levels(b, kv.get("levels"));
        return b.build(data).getHierarchy();
    }

    static String[][] order(String[] data, Map<String, String> kv) throws IOException {
        DataType<?> type = kv.get("type").equals("integer") ? DataType.INTEGER : DataType.STRING;
        String o = kv.getOrDefault("order", "natural");
        HierarchyBuilderOrderBased<?> b = o.equals("natural") ? HierarchyBuilderOrderBased.create(type, true)
            : HierarchyBuilderOrderBased.create(type, Files.readAllLines(Paths.get(o), StandardCharsets.UTF_8).toArray(new String[0]));
        levels(b, kv.get("levels"));
        return b.build(data).getHierarchy();
    }

    static String[][] redaction(String[] data, Map<String, String> kv) {
        Order align = kv.getOrDefault("align", "left").equals("left") ? Order.LEFT_TO_RIGHT : Order.RIGHT_TO_LEFT;
        Order redact = kv.getOrDefault("redact", "right").equals("right") ? Order.RIGHT_TO_LEFT : Order.LEFT_TO_RIGHT;
        char pad = kv.getOrDefault("padding", "*").charAt(0), ch = kv.getOrDefault("char", "*").charAt(0);
        return HierarchyBuilderRedactionBased.create(align, redact, pad, ch).build(data).getHierarchy();
    }

    static String[][] date(String[] data, Map<String, String> kv) {
        List<Granularity> gs = new ArrayList<>();
        for (String g : kv.get("granularities").split(",")) gs.add(Granularity.valueOf(g));
        HierarchyBuilderDate b = HierarchyBuilderDate.create(DataType.createDate(kv.get("format")),
            TimeZone.getTimeZone("UTC"), new HierarchyBuilderDate.Format(), gs.toArray(new Granularity[0]));
        return b.build(data).getHierarchy();
    }
}
