# transitions.gp — the costs and cures of ring changes, per second, in
# three panels: redirects (fencing and migrations' MOVED and forwards),
# fallback reads (dashed), ASK replies (dotted) and MOVED replies
# (dash-dotted); staged join and drain copies (dashed: from the database)
# and keys moved by slot migrations (dash-dotted); stale reads and stale
# overwrites (dashed). One colour per run; the scenario's events marked. A
# column a database of an earlier ringsim lacks is empty: no line.
#
# Reads (current directory): runs.tsv, ticks-<run_id>.tsv (columns 7-15),
# events.tsv, ejections.tsv. Variables: out, svg, levels, ej.
#   gnuplot -e "out='transitions.png'" /path/to/plots/transitions.gp

chart = "transitions"
plotdir = ARG0[1:strlen(ARG0) - strlen(chart . ".gp")]
load plotdir . "common.gp"
W = 1100
H = 820
load plotdir . "terminal.gp"

set multiplot title titled("Transitions: redirects, copies and migrations, stale data") font ",12"
strip_top = 1.0 - 34.0 / H
strip_h = strip_px / (1.0 * H)
load plotdir . "strip.gp"

nkey = nruns + nej_key
bottom = kbottom(nkey) / H
top = strip_top - strip_h
third = (top - bottom) / 3.0
gap = 14.0 / H
set lmargin at screen L
set rmargin at screen R
set xrange [0:tmax]
set y2range [0:1]
unset y2tics
set yrange [0:*]
unset key
# a column per second of its tick (the data are counts per tick)
rate(k, c) = column(c) / tick[k]

# top: redirects, fallback reads, ASK and MOVED replies
set tmargin at screen top
set bmargin at screen top - third + gap
set format x ""
unset xlabel
set ylabel "redirects/s"
plot for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):(rate(k, 7)) with lines lt runcolor(k) notitle, \
     for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):(rate(k, 10)) with lines lt runcolor(k) dt (6,3) lw 1.5 notitle, \
     for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):(rate(k, 13)) with lines lt runcolor(k) dt (2,3) lw 1.5 notitle, \
     for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):(rate(k, 14)) with lines lt runcolor(k) dt (8,3,2,3) lw 1.5 notitle, \
     (0) with lines lt nodraw notitle, \
     @EVT_LINES

# middle: warm-up and drain copies, keys moved by slot migrations
set tmargin at screen top - third - gap
set bmargin at screen top - 2 * third + gap
set ylabel "copies/s"
plot for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):(rate(k, 8)) with lines lt runcolor(k) notitle, \
     for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):(rate(k, 9)) with lines lt runcolor(k) dt (6,3) lw 1.5 notitle, \
     for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):(rate(k, 15)) with lines lt runcolor(k) dt (8,3,2,3) lw 1.5 notitle, \
     (0) with lines lt nodraw notitle, \
     @EVT_LINES

# bottom: stale reads and overwrites
set tmargin at screen top - 2 * third - gap
set bmargin at screen bottom
set format x "%g"
set xlabel "simulated time (s)"
set ylabel "stale/s"
set key outside bottom center horizontal maxcols kcols reverse Left samplen 2.5 spacing 1.1 width 2
plot for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):(rate(k, 11)) with lines lt runcolor(k) title label[k], \
     for [k=1:nruns] ticks_file(k) skip 1 using (mid(k)):(rate(k, 12)) with lines lt runcolor(k) dt (6,3) lw 1.5 notitle, \
     (0) with lines lt nodraw notitle, \
     @EVT_LINES @EJ_KEY
unset multiplot
