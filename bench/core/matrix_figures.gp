# Plots of bench/core/matrix_figures.sh: the M-BMBF paper's figures 3-6 as
# reproduced, from bench/results/matrix-fig{3,4,5,6}.dat.  Columns of every
# file: x, then M-BMBF "emptier", M-BMBF "first", split Bloom filter, 2BDBF,
# classic filter (twice, insertion then query, for figures 4 and 5).
set terminal svg size 760,600 dynamic font "sans,12"
set grid
set key below
names = "'M-BMBF s=2, emptier (default)' 'M-BMBF s=2, first (paper)' 'split Bloom filter' '2BDBF' 'classic, same bits'"
name(i) = word(names, i)

set output "bench/results/matrix-fig3.svg"
set title "Values inserted until full, 2^{20} bits in all (k = 10)"
set xlabel "rows r"
set ylabel "values inserted until full"
set logscale x 2
set yrange [60000:90000]
plot for [i=1:5] "bench/results/matrix-fig3.dat" using 1:(column(i+1)) with linespoints lw 1.5 pt 7 title name(i)

set output "bench/results/matrix-fig4.svg"
set terminal svg size 760,900 dynamic font "sans,12"
set multiplot layout 2,1 title "Time as r grows (2^{22} bits, half the capacity inserted, k = 10)"
set title "insertion"
set ylabel "ns per value"
set xlabel "rows r"
set autoscale y
set yrange [0:*]
plot for [i=1:5] "bench/results/matrix-fig4.dat" using 1:(column(i+1)) with linespoints lw 1.5 pt 7 title name(i)
set title "query (values never inserted)"
set ylabel "ns per probe"
set logscale y
set yrange [*:*]
plot for [i=1:5] "bench/results/matrix-fig4.dat" using 1:(column(i+6)) with linespoints lw 1.5 pt 7 title name(i)
unset multiplot
unset logscale

set output "bench/results/matrix-fig5.svg"
set multiplot layout 2,1 title "Time as n grows (r = 8 rows of 131072 bits, k = 10)"
set title "insertion"
set xlabel "values inserted n (thousands)"
set ylabel "ns per value"
set yrange [0:*]
plot for [i=1:5] "bench/results/matrix-fig5.dat" using ($1/1000):(column(i+1)) with linespoints lw 1.5 pt 7 title name(i)
set title "query (values never inserted)"
set ylabel "ns per probe"
plot for [i=1:5] "bench/results/matrix-fig5.dat" using ($1/1000):(column(i+6)) with linespoints lw 1.5 pt 7 title name(i)
unset multiplot

set terminal svg size 760,600 dynamic font "sans,12"
set output "bench/results/matrix-fig6.svg"
set title "False-positive rate as values are inserted (r = 8 rows of 131072 bits, k = 10)"
set xlabel "values inserted n (thousands)"
set ylabel "false-positive rate"
set logscale y
set format y "%g"
set yrange [1e-6:0.5]
set arrow from 72.68, graph 0 to 72.68, graph 1 nohead dt 2
set label "r m ln2 / k" at 74, 2e-6
plot for [i=1:5] "bench/results/matrix-fig6.dat" using ($1/1000):(column(i+1) > 0 ? column(i+1) : 1/0) with linespoints lw 1.5 pt 7 ps 0.6 title name(i)
