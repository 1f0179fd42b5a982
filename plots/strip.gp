# strip.gp — the events strip: one multiplot panel above a chart with a
# lane per label level (events.tsv: labels staggered by their `level`
# column so they never overlap) and, when ej is 1, a bottom lane of
# ejection markers (ejections.tsv: open triangle an ejection, filled a
# cascade removal, in the run's colour). Takes strip_top and strip_h
# (screen units) and the variables of common.gp. Restores the settings it
# changes except margins.
if (lanes > 0) {
    set tmargin at screen strip_top
    set bmargin at screen strip_top - strip_h
    set lmargin at screen L
    set rmargin at screen R
    unset xlabel
    unset ylabel
    unset ytics
    unset border
    unset grid
    unset key
    set xtics format ""
    set xtics scale 0
    set xrange [0:tmax]
    set yrange [0:lanes]
    off = ej ? 1 : 0
    plot "events.tsv" skip 1 using 1:(0):(0):($2 + off + 0.5):(evcolor($3)) with vectors nohead lc variable lw 1, \
         "events.tsv" skip 1 using 1:($2 + off + 0.5):5:(evcolor($3)) with labels left offset char 0.4,0 tc variable font ",9", \
         "ejections.tsv" skip 1 using 1:(nruns > 1 ? 0.78 - 0.56 * ($2 - 1) / (nruns - 1) : 0.5):($3 != 0 ? 11 : 10):(runcolor($2)) \
             with points pt variable lc variable lw 1 ps 0.9
    set border 3
    set grid xtics ytics
    set xtics format "%g"
    set xtics scale 0.6 nomirror
    set ytics nomirror
}
