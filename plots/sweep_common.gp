# sweep_common.gp — what the sweep charts share (sweep_lines.gp,
# sweep_heatmap.gp load it from their own folder; it is not meant to be run
# alone): the metric drawn, the axes, the scenarios, the look. plots/README.md
# ("Sweeps") documents the data files.
#
# Reads (current directory): sweep-metrics.tsv, sweep-axes.tsv,
# sweep-series.tsv. Variables (give them with -e; all optional):
#   m    the metric to draw: its metric_no in sweep-metrics.tsv (default 1)
#   out  the image to write (default: sweep-METRIC.png or .svg)
#   svg  1: SVG, 0: PNG (pngcairo when gnuplot has it, else png)
#
# Defines for the chart scripts:
#   mname mtitle munit mscale mcount mbetter   the metric's row
#   dfile            its data file, sweep-METRIC.tsv
#   xpath xkind xunit nx, ypath ykind yunit ny   the axes (y: heat maps)
#   nseries, sname[k], sruns[k]   the scenarios (one line each)
#   ylab, xlab, ycat             axis labels; 1 when x is categories
#
# Text from the database (paths, values, scenario names) only ever reaches
# gnuplot as data read with strcol(); nothing read from a file is executed.

if (!exists("svg")) svg = 0
if (!exists("m")) m = 1
m = int(m)

set datafile separator "\t"
set encoding utf8

stats "sweep-metrics.tsv" skip 1 using 1 nooutput
if (m < 1 || m > STATS_records) {
    print sprintf("m=%d: sweep-metrics.tsv has metrics 1 to %d", m, STATS_records)
    exit status 1
}
mname = ""
stats "sweep-metrics.tsv" skip 1 using (int($1) == m ? (mname = strcol(2), mscale = $3, \
      munit = strcol(4), mcount = int($5), mbetter = int($6), mtitle = strcol(7), 0) : 0) nooutput
dfile = sprintf("sweep-%s.tsv", mname)

nx = 0
ny = 0
xpath = ""
ypath = ""
stats "sweep-axes.tsv" skip 1 using (strcol(1) eq "x" ? (xkind = strcol(2), xunit = strcol(3), \
      nx = int($4), xpath = strcol(5), 0) : (ykind = strcol(2), yunit = strcol(3), \
      ny = int($4), ypath = strcol(5), 0)) nooutput
ycat = 0
xcat = xkind eq "category"

stats "sweep-series.tsv" skip 1 using 1 nooutput
nseries = STATS_records
array sname[nseries]
array sruns[nseries]
k = 0
stats "sweep-series.tsv" skip 1 using (k = k + 1, sruns[k] = int($2), sname[k] = strcol(3), 0) \
      nooutput

# "Lowest hit rate (from the first event on) (%)"
ylab = strlen(munit) > 0 ? sprintf("%s (%s)", mtitle, munit) : mtitle
xlab = strlen(xunit) > 0 ? sprintf("%s (%s)", xpath, xunit) : xpath

# --- look: the run colours of common.gp
palette8 = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf"
do for [i=1:8] {
    set linetype i lc rgb word(palette8, i) lw 2 dt solid pt 7 ps 1.0
}
set linetype cycle 8
set border 3 lc rgb "#444444"
set tics nomirror out scale 0.6 textcolor rgb "#333333"
set style textbox opaque noborder margins 1,1
