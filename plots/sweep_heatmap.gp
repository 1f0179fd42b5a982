# sweep_heatmap.gp — one metric of a sweep over the grid of two parameters:
# a heat map, one cell per combination, coloured and labelled with the mean
# of its runs; for cascade_removals and db_overload_s coloured by the share
# of runs in which it happened and labelled "k/n" over the mean (the safe
# region: 0/n). The colours run from red to green towards the better end
# (higher hit rates, fewer cascades); a metric without one (keys moved)
# goes from white to blue. A cell without runs stays blank.
#
# Reads (current directory): sweep-metrics.tsv, sweep-axes.tsv,
# sweep-series.tsv, sweep-METRIC.tsv (the grid, y-major). Variables: m,
# out, svg (see sweep_common.gp and README.md).
#   gnuplot -e "m=1; out='../sweep-cascade_removals.png'" /path/to/plots/sweep_heatmap.gp

chart = "sweep_heatmap"
plotdir = ARG0[1:strlen(ARG0) - strlen(chart . ".gp")]
load plotdir . "sweep_common.gp"
chart = "sweep-" . mname
if (ny < 1) { ny = 1 }
W = 1100
H = 200 + 56 * ny
H = H < 420 ? 420 : H > 1000 ? 1000 : H
load plotdir . "terminal.gp"

ylab2 = strlen(yunit) > 0 ? sprintf("%s (%s)", ypath, yunit) : ypath
cblab = mcount ? sprintf("runs with %s > 0 (%%)", mname) : ylab
# the colour range: 0-100% for a share of runs, or of a metric that is a
# share (a hit rate, a utilization: full green is 100%, not the best cell);
# else the cells' own
if (mcount || munit eq "%") {
    set cbrange [0:100]
} else {
    undefine STATS_*
    stats dfile skip 1 using 13 nooutput
    if (!exists("STATS_max")) {
        set cbrange [0:1]
    } else {
        if (STATS_max > STATS_min) {
            set cbrange [STATS_min:STATS_max]
        } else {
            set cbrange [STATS_min - 1 : STATS_max + 1]
        }
    }
}
set title sprintf("%s: %s", mtitle, sname[1]) font ",12"
set xlabel xpath
set ylabel ypath
set cblabel cblab offset 2.5, 0
set xrange [-0.5 : nx - 0.5]
set yrange [-0.5 : ny - 0.5]
set xtics () scale 0
set ytics () scale 0
set border 0
set key off
set lmargin 14
set rmargin 16
set bmargin 5

# red - yellow - green towards the better end
if (mbetter > 0) {
    set palette defined (0 "#d73027", 0.5 "#fee08b", 1 "#1a9850")
} else {
    if (mbetter < 0) {
        set palette defined (0 "#1a9850", 0.5 "#fee08b", 1 "#d73027")
    } else {
        set palette defined (0 "#f7fbff", 1 "#2171b5")
    }
}
set colorbox vertical user origin screen 0.885, graph 0 size screen 0.02, graph 1
# two lines per cell: "2/4" over the mean, or the mean over "never 1/4"
cell(v, n) = strlen(n) == 0 ? v : mcount ? n . "\n" . v : v . "\n" . n

plot dfile skip 1 using 2:3:13 with image pixels, \
     '' skip 1 using 2:3:(cell(strcol(14), strcol(15))) with labels font ",10" tc rgb "#111111", \
     '' skip 1 using 2:(-1):xtic(strcol(16)) with points pt -1 lc rgb "#ffffff", \
     '' skip 1 using (-1):3:ytic(strcol(17)) with points pt -1 lc rgb "#ffffff"
