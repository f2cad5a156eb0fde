#!/bin/sh
# Writes tests/data/arx_hierarchies/*.csv: ARX 3.9's hierarchy builders (github:arx-deidentifier/arx commit
# aacd487fb77b3af7970d5d6fa1b2f6cca1182b64) run by benchmarks/arx/RunArxHierarchy.java on columns of
# tests/data. Run from the repository root with ARX's source tree in $ARX (see RunArxHierarchy.java's header):
#
#   ARX=/tmp/arxhier-arx sh benchmarks/arx/make_hierarchy_goldens.sh
#
# tests/test_arx_hierarchy_goldens.py gives privaudit's builders the same parameters (each case's spec is
# beside its command there) and compares cell for cell. Tests never run Java.
set -eu
: "${ARX:?set ARX to ARX's extracted source tree}"
CP="$ARX/classes:$(find "$ARX/lib/ant" -name '*.jar' | tr '\n' ':')"
mkdir -p "$ARX/classes"
javac -nowarn -cp "$CP" -sourcepath "$ARX/src/main" -d "$ARX/classes" benchmarks/arx/RunArxHierarchy.java
OUT=tests/data/arx_hierarchies
ADULT=tests/data/generalization/adult_sample.csv
WAGE=tests/data/surveys/wage1.csv
ACS12=tests/data/acs12/acs12.csv
run() { name=$1; shift; TZ=UTC java -Duser.language=en -Duser.country=US -cp "$CP" RunArxHierarchy "$@" > "$OUT/$name.csv"; }

run adult_age_snap $ADULT age interval type=integer intervals=0:5 lower=25:20:0 upper=75:80:150 levels=2/2
run adult_age_coded $ADULT age interval type=integer intervals=0:5 lower=20:20:-1000000 upper=80:80:1000000 levels=2/2
run adult_age_decades $ADULT age interval type=integer intervals=0:10 lower=0:0:0 upper=100:100:100 levels=2/5
run adult_age_uneven $ADULT age interval type=integer intervals=0:18,18:25,25:45,45:65,65:100 \
    lower=0:0:0 upper=100:100:200 levels=2+3/2
run wage1_educ_coded $WAGE educ interval type=integer intervals=0:4 lower=8:8:0 upper=16:17:19 levels=2
run wage1_wage_unbounded $WAGE wage interval type=decimal intervals=0:2.5 \
    lower=-1000:-1000:-1000 upper=1000:1000:1000 levels=2/2
run acs12_income $ACS12 income interval type=decimal intervals=0:25000 lower=0:0:0 upper=100000:100000:1e9 \
    levels=2/2
run wage1_educ_order $WAGE educ order type=integer order=natural levels=3/2
run adult_education_order $ADULT education order type=string order=$OUT/education_order.txt levels=4/2
run createdat400_lau2_redaction tests/data/sdcmicro/createdat400.csv lau2 redaction
run wage1_exper_redaction $WAGE exper redaction align=right redact=right padding=0 char=*
run fertil2_born_dates $OUT/fertil2_born.csv born date format=yyyy-MM-dd granularities=MONTH_YEAR,QUARTER_YEAR,YEAR,DECADE
