# backend_qps.gp — database operations per second (reads + writes) of each
# run over simulated time, with the database's capacity (workers /
# service_time) as a dashed horizontal line, and the scenario's events.
#
# Reads (current directory): runs.tsv (capacity_rps), ticks-<run_id>.tsv,
# events.tsv, ejections.tsv. Variables: out, svg, levels, ej.
#   gnuplot -e "out='backend_qps.png'" /path/to/plots/backend_qps.gp

chart = "backend_qps"
plotdir = ARG0[1:strlen(ARG0) - strlen(chart . ".gp")]
load plotdir . "common.gp"
W = 1100
H = 500
load plotdir . "terminal.gp"

# distinct known capacities: one grey line if the runs share it, else one
# dashed line per run in its colour
samecap = 1
ncap = 0
do for [k=1:nruns] {
    if (cap[k] == cap[k]) {
        ncap = ncap + 1
        if (cap[k] != cap[1]) { samecap = 0 }
    }
}
capclause = ncap == 0 ? "" : samecap ? \
    ", (cap[1]) with lines lt 21 notitle" : \
    ", for [k=1:nruns] (cap[k] == cap[k] ? cap[k] : 1/0) with lines lt runcolor(k) lw 1.5 dt (10,5) title sprintf('capacity %.0f requests/s, run %d', cap[k], rid[k])"

set multiplot title titled("Backend (database) load") font ",12"
strip_top = 1.0 - 34.0 / H
strip_h = strip_px / (1.0 * H)
load plotdir . "strip.gp"
if (ncap > 0 && samecap) {
    set label 1 sprintf("database capacity: %.0f requests/s", cap[1]) at graph 0.995, first cap[1] \
        right offset 0,0.75 textcolor rgb "#333333" front boxed
}

set tmargin at screen strip_top - strip_h
nkey = nruns + nej_key + (ncap == 0 || samecap ? 0 : nruns)
set bmargin at screen kbottom(nkey) / H
set lmargin at screen L
set rmargin at screen R
set xrange [0:tmax]
set yrange [0:*]
set y2range [0:1]
unset y2tics
set samples 2
set xlabel "simulated time (s)"
set ylabel "database requests/s"
set format y "%.0f"
set key outside bottom center horizontal maxcols kcols reverse Left samplen 2.5 spacing 1.1 width 2
plot for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):3 with lines lt runcolor(k) title label[k] \
     @capclause, \
     (0) with lines lt nodraw notitle, \
     @EVT_LINES @EJ_KEY
unset multiplot
