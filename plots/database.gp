# database.gp — the database of each run over simulated time, in two
# panels: utilization (share of worker time busy, %) and the 99th
# percentile latency of its operations (queue + service, ms); the
# scenario's events marked through both.
#
# Reads (current directory): runs.tsv, ticks-<run_id>.tsv, events.tsv,
# ejections.tsv. Variables: out, svg, levels, ej.
#   gnuplot -e "out='database.png'" /path/to/plots/database.gp

chart = "database"
plotdir = ARG0[1:strlen(ARG0) - strlen(chart . ".gp")]
load plotdir . "common.gp"
W = 1100
H = 720
load plotdir . "terminal.gp"

set multiplot title titled("Database utilization and latency") font ",12"
strip_top = 1.0 - 34.0 / H
strip_h = strip_px / (1.0 * H)
load plotdir . "strip.gp"

nkey = nruns + nej_key
bottom = kbottom(nkey) / H
mid = bottom + (strip_top - strip_h - bottom) * 0.5
set lmargin at screen L
set rmargin at screen R
set xrange [0:tmax]
set y2range [0:1]
unset y2tics

# top: utilization
set tmargin at screen strip_top - strip_h
set bmargin at screen mid + 14.0 / H
set format x ""
unset xlabel
set yrange [0:112]
set ytics 0, 20, 100
set ylabel "utilization (%)"
set label 2 "all workers busy" at graph 0.995, first 100 right offset 0,0.7 textcolor rgb "#333333" front boxed
unset key
plot for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):4 with lines lt runcolor(k) notitle, \
     100 with lines lt 21 notitle, \
     (0) with lines lt nodraw notitle, \
     @EVT_LINES

# bottom: p99 latency
set tmargin at screen mid - 14.0 / H
set bmargin at screen bottom
unset label 2
set ytics autofreq
set format x "%g"
set xlabel "simulated time (s)"
set yrange [0:*]
set ylabel "p99 latency (ms)"
set key outside bottom center horizontal maxcols kcols reverse Left samplen 2.5 spacing 1.1 width 2
plot for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):5 with linespoints lt runcolor(k) pt 7 ps 0.3 title label[k], \
     (0) with lines lt nodraw notitle, \
     @EVT_LINES @EJ_KEY
unset multiplot
