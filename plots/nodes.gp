# nodes.gp — requests per second received by each cache node over
# simulated time, one panel per run, each above a strip that shows every
# node's state (up, slow, crashed, ejected, removed, gutter) as coloured
# intervals; the scenario's events marked through all panels.
#
# Reads (current directory): runs.tsv (nodes: how many per run),
# nodes-<run_id>.tsv, states-<run_id>.tsv, events.tsv, ejections.tsv.
# Variables: out, svg, levels, ej.
#   gnuplot -e "out='nodes.png'" /path/to/plots/nodes.gp

chart = "nodes"
plotdir = ARG0[1:strlen(ARG0) - strlen(chart . ".gp")]
load plotdir . "common.gp"

# pixel layout: title, events strip, then per run a panel title, the rate
# panel and the state strip; the state legend at the bottom
rate_px = 190
gap_px = 52
state_px(k) = 14 * (nnodes[k] > 0 ? nnodes[k] : 1) + 8
head_px = 34 + strip_px
W = 1100
H = head_px + 70
do for [k=1:nruns] { H = H + gap_px + rate_px + 8 + state_px(k) }
load plotdir . "terminal.gp"
Hf = 1.0 * H
R = 0.88

# one y scale for every panel, so that runs compare at a glance
ymax = 0
do for [k=1:nruns] {
    if (nnodes[k] > 0) {
        undefine STATS_*
        stats nodes_file(k) skip 1 using 3 nooutput
        if (exists("STATS_max") && STATS_max > ymax) { ymax = STATS_max }
    }
}
ymax = ymax > 0 ? ymax * 1.06 : 1

set multiplot title titled("Requests per node") font ",12"
strip_top = 1.0 - 34.0 / H
strip_h = strip_px / (1.0 * H)
load plotdir . "strip.gp"

set lmargin at screen L
set rmargin at screen R
set xrange [0:tmax]
set y2range [0:1]
unset y2tics
y = H - head_px
do for [k=1:nruns] {
    nn = nnodes[k] > 0 ? nnodes[k] : 1
    array nodename[nn]
    do for [j=1:nn] { nodename[j] = "" }
    if (nnodes[k] > 0) {
        stats nodes_file(k) skip 1 using (nodename[int($2)] = strcol(4), 0) nooutput
    }

    # the rate panel
    y = y - (k == 1 ? 30 : gap_px)
    set tmargin at screen y / Hf
    y = y - rate_px
    set bmargin at screen y / Hf
    set title label[k] font ",10" offset 0,-0.4
    set format x ""
    unset xlabel
    set yrange [0:ymax]
    set ylabel "requests/s"
    set format y "%.0f"
    set ytics auto
    set key outside right top vertical reverse Left samplen 2 spacing 1.0 width 1
    plot for [j=1:nn] nodes_file(k) skip 1 using (mid(k)):($2 == j ? $3 : NaN) with lines lt j lw 1.5 title nodename[j], \
         @EVT_LINES
    unset title

    # the state strip
    y = y - 8
    set tmargin at screen y / Hf
    y = y - state_px(k)
    set bmargin at screen y / Hf
    set yrange [nn + 0.6:0.4]
    unset ylabel
    set ytics 1 scale 0 font ",9"
    set format y ""
    set grid noytics
    if (k == nruns) {
        set format x "%g"
        set xlabel "simulated time (s)"
        set key outside bottom center horizontal samplen 1.5 width 1
    } else {
        set format x "%g"
        unset xlabel
        unset key
    }
    plot states_file(k) skip 1 using (($1 + $2) / 2):3:(($2 - $1) / 2):(0.36):(statecolor($4)):ytic(5) \
             with boxxyerror fc rgb variable notitle, \
         for [s=0:5] keyentry with boxes fc rgb statecolor(s) title statename[s + 1], \
         @EVT_LINES @EJ_KEY
    set grid ytics
    set format y "%g"
}
unset multiplot
