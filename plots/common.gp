# common.gp — what every ringsim chart shares: terminal, fonts, colours, the
# run table and the events strip. Each chart script loads it from its own
# folder; it is not meant to be run alone. plots/README.md documents the
# data files and variables.
#
# Reads: runs.tsv (from the current directory).
# Variables (give them with -e; all optional):
#   out     the image to write (default: the chart's name with .png or .svg)
#   svg     1: SVG, 0: PNG (pngcairo when gnuplot has it, else png)
#   levels  lanes in the events strip for staggered labels (default 3)
#   ej      1: the strip gets a lane of ejection markers (ejections.tsv)
#
# Defines for the chart scripts:
#   nruns, rid[k], dur[k], tick[k], cap[k], nnodes[k], name[k], label[k]
#   tmax        the longest run, in simulated seconds
#   subject     the scenario name when every run shares it
#   L, R        the left and right edges of every plot, in screen units
#   EVT_LINES   a plot clause: the vertical event markers (axes x1y2, 0..1)
#   strip_px    the height of the events strip in pixels
# terminal.gp then sets the terminal from W, H and chart; strip.gp draws
# the events strip as one multiplot panel.
#
# Scenario text (names, labels, event labels) only ever reaches gnuplot as
# data read with strcol(); nothing read from a file is executed.

if (!exists("svg")) svg = 0
if (!exists("levels")) levels = 3
if (!exists("ej")) ej = 0
levels = int(levels) < 0 ? 0 : int(levels)

set datafile separator "\t"
set encoding utf8

# --- colours: one per run (runs 9-16 reuse them dashed), grey for shared events
palette8 = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf"
do for [i=1:8] {
    set linetype i lc rgb word(palette8, i) lw 2 dt solid pt 7 ps 0.6
    set linetype i+8 lc rgb word(palette8, i) lw 2 dt (8,4) pt 7 ps 0.6
}
set linetype 20 lc rgb "#666666" lw 1 dt (3,3)
set linetype 21 lc rgb "#333333" lw 1.5 dt (10,5)
set linetype cycle 16
runcolor(k) = ((int(k) - 1) % 16) + 1
evcolor(r) = r == 0 ? 20 : runcolor(r)

# --- node states (node_ticks.state): number -> colour
# 0 up, 1 slow, 2 crashed, 3 ejected, 4 removed, 5 gutter, 6 other
statecolor(s) = s == 0 ? 0xcfe8cf : s == 1 ? 0xff9f1c : s == 2 ? 0xd62728 : \
                s == 3 ? 0x7b3fa0 : s == 4 ? 0xbdbdbd : s == 5 ? 0x6baed6 : 0x000000
array statename[7] = ["up", "slow", "crashed", "ejected", "removed", "gutter", "other"]

# --- the runs
stats "runs.tsv" skip 1 using 1 nooutput
nruns = STATS_records
array rid[nruns]
array dur[nruns]
array tick[nruns]
array cap[nruns]
array nnodes[nruns]
array name[nruns]
array label[nruns]
k = 0
stats "runs.tsv" skip 1 using (k = k + 1, rid[k] = int($1), dur[k] = $2, tick[k] = $3, \
      cap[k] = $4, nnodes[k] = int($5), name[k] = strcol(6), label[k] = strcol(7), 0) nooutput
tmax = 0
subject = name[1]
do for [i=1:nruns] {
    if (dur[i] > tmax) { tmax = dur[i] }
    if (name[i] ne subject) { subject = "" }
}
if (tmax <= 0) { tmax = 1 }
# the key under a chart: as many columns as the longest label allows
labmax = 0
do for [i=1:nruns] { if (strlen(label[i]) > labmax) { labmax = strlen(label[i]) } }
kcols = labmax > 64 ? 1 : labmax > 36 ? 2 : 3
krows(n) = int(ceil(n * 1.0 / kcols))
# the bottom margin, in pixels, for the x axis and a key of n entries
kbottom(n) = 56.0 + 17 * krows(n)
# "Hit rate" -> "Hit rate: scale-out-3-to-4" (the name is a string value, never code)
titled(what) = strlen(subject) > 0 ? sprintf("%s: %s", what, subject) : what
ticks_file(k) = sprintf("ticks-%d.tsv", rid[k])
# a tick's value covers [t_s, t_s + tick): drawn at the middle of it
mid(k) = $1 + tick[k] / 2
nodes_file(k) = sprintf("nodes-%d.tsv", rid[k])
states_file(k) = sprintf("states-%d.tsv", rid[k])

# --- look
L = 0.085
R = 0.975
set border 3 lc rgb "#444444"
set tics nomirror out scale 0.6 textcolor rgb "#333333"
set grid xtics ytics lc rgb "#e3e3e3" lw 1 dt solid
set style fill solid 1.0 noborder
set key noautotitle
# labels written over data (capacity, "all workers busy") sit on a white box
set style textbox opaque noborder margins 2,1

# --- the events strip (strip.gp draws it above a chart) and the vertical
# markers through the chart itself (x1y2, with y2 fixed to 0..1)
EVT_LINES = "'events.tsv' skip 1 using 1:(0):(0):(1):(evcolor($3)) axes x1y2 with vectors nohead lc variable dt 3 lw 1 notitle"
# key entries explaining the ejection markers (appended to a plot command)
EJ_KEY = ej ? ", keyentry with points pt 10 ps 1.1 lc rgb '#555555' title 'node ejected', keyentry with points pt 11 ps 1.1 lc rgb '#555555' title 'cascade removal'" : ""
nej_key = ej ? 2 : 0
lanes = levels + (ej ? 1 : 0)
strip_px = lanes > 0 ? 16 * lanes + 6 : 0
fontsize = 10
