# Plot of bench/results/fpr-experiment.dat (bench/core/fpr_experiment.sh): measured
# false-positive rates (points) against (1 - e^{-kn/m})^k (lines).
set terminal svg size 760,520 dynamic font "sans,12"
set output "bench/results/fpr-experiment.svg"
set title "Bloom filter false-positive rate: measured (points) vs (1 - e^{-kn/m})^k (lines)"
set xlabel "m/n (bits per value)"
set ylabel "false-positive rate"
set logscale y
set format y "%g"
set xrange [0.8:5.2]
set yrange [0.05:1.1]
set xtics 1
set key outside right
set grid
theory(k, r) = (1 - exp(-k / r))**k
set samples 200
plot for [k=1:5] theory(k, x) with lines lw 1.5 lc k title sprintf("k = %d, theory", k), \
     for [k=1:5] "bench/results/fpr-experiment.dat" using 2:($1 == k ? $3 : 1/0):4 with yerrorbars pt 7 ps 0.7 lc k title sprintf("k = %d, measured", k)
