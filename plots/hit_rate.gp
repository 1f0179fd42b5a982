# hit_rate.gp — the hit rate of each run over simulated time, one line per
# run, with the scenario's events marked.
#
# Reads (current directory): runs.tsv, ticks-<run_id>.tsv, events.tsv,
# ejections.tsv. Variables: out, svg, levels, ej (see README.md).
#   gnuplot -e "out='hit_rate.png'" /path/to/plots/hit_rate.gp

chart = "hit_rate"
plotdir = ARG0[1:strlen(ARG0) - strlen(chart . ".gp")]
load plotdir . "common.gp"
W = 1100
H = 500
load plotdir . "terminal.gp"

set multiplot title titled("Hit rate") font ",12"
strip_top = 1.0 - 34.0 / H
strip_h = strip_px / (1.0 * H)
load plotdir . "strip.gp"

set tmargin at screen strip_top - strip_h
nkey = nruns + nej_key
set bmargin at screen kbottom(nkey) / H
set lmargin at screen L
set rmargin at screen R
set xrange [0:tmax]
set yrange [*:*]
set autoscale yfix
set offsets 0, 0, graph 0.06, graph 0.04
set y2range [0:1]
unset y2tics
set xlabel "simulated time (s)"
set ylabel "hit rate (%)"
set key outside bottom center horizontal maxcols kcols reverse Left samplen 2.5 spacing 1.1 width 2
plot for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):2 with lines lt runcolor(k) title label[k], \
     (100) with lines lt nodraw notitle, \
     @EVT_LINES @EJ_KEY
unset multiplot
