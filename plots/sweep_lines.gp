# sweep_lines.gp — one metric of a sweep against one parameter: the mean of
# each combination's runs with its 95% confidence interval as error bars,
# the range from minimum to maximum as a shaded band, one line per
# scenario; over each point, for cascade_removals and db_overload_s, the
# runs in which it happened ("2/4"), and for a metric some runs have no
# value of, how many ("never 1/4").
#
# Reads (current directory): sweep-metrics.tsv, sweep-axes.tsv,
# sweep-series.tsv, sweep-METRIC.tsv. Variables: m, out, svg (see
# sweep_common.gp and README.md).
#   gnuplot -e "m=2; out='../sweep-min_hit_rate.png'" /path/to/plots/sweep_lines.gp

chart = "sweep_lines"
plotdir = ARG0[1:strlen(ARG0) - strlen(chart . ".gp")]
load plotdir . "sweep_common.gp"
chart = "sweep-" . mname
max3(a, b, c) = a > b ? (a > c ? a : c) : (b > c ? b : c)
min3(a, b, c) = a < b ? (a < c ? a : c) : (b < c ? b : c)
W = 1100
H = 520
load plotdir . "terminal.gp"

sc = mscale
# the extent of what is drawn (means, CIs, min-max), for the y range and the
# row of labels above the data; a metric without a single value (recovery_s
# when no run recovered) still gets its axes and labels
hi(c) = column(c) == column(c) ? column(c) * sc : -1e308
lo(c) = column(c) == column(c) ? column(c) * sc : 1e308
ytop = NaN
ybot = NaN
undefine STATS_*
stats dfile skip 1 using (max3(hi(7), hi(9), hi(11))) nooutput
if (exists("STATS_max") && STATS_max > -1e308) { ytop = STATS_max }
undefine STATS_*
stats dfile skip 1 using (min3(lo(7), lo(8), lo(10))) nooutput
if (exists("STATS_min") && STATS_min < 1e308) { ybot = STATS_min }
if (ytop != ytop || ybot != ybot) { ytop = 1; ybot = 0 }
# every summary metric is >= 0 and a share <= 100%: a CI past them is cut there
undefine STATS_*
stats dfile skip 1 using (lo(10)) nooutput
if (exists("STATS_min") && STATS_min >= 0 && ybot < 0) { ybot = 0 }
if (sc == 100 && ytop > 100) { ytop = 100 }
span = ytop - ybot
if (span <= 0) { span = abs(ytop) > 0 ? abs(ytop) : 1 }
undefine STATS_*
stats dfile skip 1 using (strlen(strcol(15)) > 0 ? 1 : 0) nooutput
notes = exists("STATS_sum") ? STATS_sum > 0 : 0
# labels of points closer than 5% of the axis go to two staggered rows
undefine STATS_*
px = NaN
stats dfile skip 1 using (gap = (px == px && $2 > px) ? $2 - px : 1e308, px = $2, gap) nooutput
mingap = exists("STATS_min") ? STATS_min : 1e308
undefine STATS_*
stats dfile skip 1 using 2 nooutput
xspan = exists("STATS_max") ? STATS_max - STATS_min : 0
stagger = xspan > 0 && mingap < 0.05 * xspan
lanes = stagger ? 2 : 1
lane(s) = ytop + span * (0.05 + 0.045 * lanes * (s - 1) + (stagger && int($0) % 2 ? 0.045 : 0))
set yrange [ybot - 0.04 * span : ytop + span * (notes ? 0.06 + 0.045 * lanes * nseries : 0.06)]

single = nseries == 1
set title (single ? sprintf("%s: %s", mtitle, sname[1]) : mtitle) font ",12"
set xlabel xlab
set ylabel ylab
set grid xtics ytics lc rgb "#e3e3e3" lw 1 dt solid
set key outside bottom center horizontal samplen 2.5 spacing 1.1 width 2
set bmargin 6
set lmargin 12
set rmargin 4
XT = xcat ? ":xtic(strcol(16))" : ""
if (xcat) {
    set xrange [0.5 : nx + 0.5]
} else {
    set autoscale xfix
    set offsets graph 0.03, graph 0.03, 0, 0
}
ser(s) = int($1) == s ? $2 : NaN
bandtitle = "min–max of the runs (shaded)"
meantitle(s) = single ? "mean, 95% CI" : sprintf("%s (mean, 95% CI)", sname[s])
# what the labels over the points count
notekey = !notes ? "" : mcount ? sprintf("k/n above: runs with %s > 0", mname) : \
          "never k/n above: runs without a value"
NOTE_KEY = notes ? ", keyentry with points pt -1 lc rgb '#ffffff' title notekey" : ""

plot for [s=1:nseries] dfile skip 1 using (ser(s)):($10 * sc):($11 * sc) \
         with filledcurves lc rgb word(palette8, (s - 1) % 8 + 1) fs transparent solid 0.13 noborder \
         title (s == 1 ? bandtitle : ""), \
     for [s=1:nseries] dfile skip 1 using (ser(s)):($7 * sc):($8 * sc):($9 * sc) \
         with yerrorbars lt s pt 7 ps 0.9 notitle, \
     for [s=1:nseries] dfile skip 1 using (ser(s)):($7 * sc)@XT \
         with linespoints lt s pt 7 ps 0.9 title meantitle(s), \
     for [s=1:nseries] dfile skip 1 using (ser(s)):(lane(s)):(word(strcol(15), words(strcol(15)))) \
         with labels tc lt s font ",9" notitle \
     @NOTE_KEY
