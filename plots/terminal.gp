# terminal.gp — sets the terminal and output of a ringsim chart (loaded by
# each chart script after common.gp). Takes W and H (pixels) and chart (the
# default output name without extension); `out` and `svg` as in common.gp.
# PNG uses pngcairo when this gnuplot has it, else the libgd png terminal.
if (svg) {
    set terminal svg size W,H fixed noenhanced font "sans-serif,11" background "#ffffff"
    ext = ".svg"
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size W,H noenhanced font "Sans,10" background "#ffffff"
    } else {
        set terminal png size W,H noenhanced background "#ffffff"
    }
    ext = ".png"
}
if (!exists("out")) out = chart . ext
set output out
