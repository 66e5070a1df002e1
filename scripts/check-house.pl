#!/usr/bin/perl
# scripts/check-house.pl: the shape of src/ that doc/architecture.md states,
# checked from the files themselves.  Run by scripts/test (once, whatever
# the majors); prints one line per check and "check-house: N passed, N
# failed".
#
#   1. layers: every #include "dir/file.h" of a file in src/ names a file
#      of its own folder or of a folder below it in @LAYERS (a wing never
#      includes a sibling wing or anything above it), and names a file that
#      exists; the plain-C core includes no PostgreSQL header.  Includes are how the wings reach each other (calls go
#      through the declarations they include), so no two folders then call
#      each other.
#   2. size: no file in src/ is over $MAX_LINES lines.
#   4. circles: no file of src/ calls another that calls it back, directly
#      or round a longer circle.  A .c file calls another when it names a
#      function or variable the other defines without `static` (PostgreSQL's
#      style puts a definition's name at the start of its line), so each
#      edge is read from the text, as the includes are.
#   3. docs: doc/architecture.md names every file in src/: its path under
#      src/ (`summaries/summary_buffer.c`, or the whole path), or, for a
#      name no other file of src/ has, the name alone in backquotes.
#
#   perl scripts/check-house.pl [REPO_ROOT]
use strict;
use warnings;
use File::Find;

my $root = shift // '.';
my $MAX_LINES = 1000;

# From the bottom up; folders on one line are wings of one floor, which
# may not include each other.  "." is src/ itself (pg_compat.h, module.c).
my @LAYERS = (
	['core'],
	['.'],
	['types'],
	['aggregates'],
	['helpers'],
	['scan', 'summaries', 'semijoin', 'joinfilter'],
	['citus'],
	['module'],
);
# module.c is the top: it may include anything.
my %floor;
for my $i (0 .. $#LAYERS) { $floor{$_} = $i for @{ $LAYERS[$i] }; }

my ($passed, $failed) = (0, 0);
sub check {
	my ($ok, $what) = @_;
	if ($ok) { $passed++; }
	else { $failed++; print "check-house: FAILED: $what\n"; }
}

my @files;
find(sub { push @files, $File::Find::name if /\.[ch]$/ && -f $_ }, "$root/src");
@files = sort @files;

sub folder_of {
	my ($rel) = @_;				# path under src/
	return 'module' if $rel eq 'module.c';
	return '.' if $rel !~ m{/};
	return (split m{/}, $rel)[0];
}

# a name that no other file of src/ has may stand alone (`filter.c`)
my %basecount;
for (@files) { (my $b = $_) =~ s{.*/}{}; $basecount{$b}++; }

my $doc = do { local (@ARGV, $/) = ("$root/doc/architecture.md"); <> } // '';

for my $file (@files) {
	(my $rel = $file) =~ s{^\Q$root\E/src/}{};
	my $folder = folder_of($rel);
	my $known = exists $floor{$folder};
	check($known, "src/$rel is in a folder that has no floor in scripts/check-house.pl (\@LAYERS)");
	open my $fh, '<', $file or die "$file: $!";
	my @lines = <$fh>;
	close $fh;
	check(@lines <= $MAX_LINES, "src/$rel has " . scalar(@lines) . " lines (at most $MAX_LINES)");
	(my $base = $rel) =~ s{.*/}{};
	check(index($doc, $rel) >= 0 || ($basecount{$base} == 1 && index($doc, "`$base`") >= 0),
		"doc/architecture.md does not name src/$rel");
	next unless $known;
	for my $line (@lines) {
		next unless $line =~ /^\s*#\s*include\s+"([^"]+)"/;
		my $inc = $1;
		my $target = -f "$root/src/$inc" ? $inc
		  : ($folder ne '.' && $folder ne 'module' && -f "$root/src/$folder/$inc") ? "$folder/$inc"
		  : undef;
		if (!defined $target) {
			# a PostgreSQL header, unless it names a folder of ours; the
			# core includes none (it builds without a server)
			my ($first) = split m{/}, $inc;
			check(!exists $floor{$first} && $inc =~ m{/|\.h$},
				"src/$rel includes \"$inc\", which is no file of src/");
			check($folder ne 'core', "src/$rel (the plain-C core) includes the PostgreSQL header \"$inc\"");
			next;
		}
		my $to = folder_of($target);
		next if $to eq $folder || $folder eq 'module';
		check(exists $floor{$to} && $floor{$to} < $floor{$folder},
			"src/$rel ($folder) includes src/$target ($to), which is not below it");
	}
}

# 4. circles between .c files, from the names each defines and uses
my (%defines, %text);
for my $file (grep { /\.c$/ } @files) {
	(my $rel = $file) =~ s{^\Q$root\E/src/}{};
	my $src = do { local (@ARGV, $/) = ($file); <> };
	$src =~ s{/\*.*?\*/}{ }gs;				# comments
	$src =~ s{"(?:[^"\\\n]|\\.)*"}{""}g;	# strings
	$text{$rel} = $src;
	my @lines = split /\n/, $src;
	for my $i (0 .. $#lines) {
		# a function: its name at the start of a line, the line before
		# its type, which does not say static
		my ($fn) = $lines[$i] =~ /^([A-Za-z_]\w*)\(/;
		if (defined $fn && $i > 0) {
			my $type = $lines[$i - 1];
			$defines{$fn} = $rel
			  if $type =~ /\w/ && $type !~ /\bstatic\b/ && $type !~ /[;{}]\s*$/;
		}
		# a variable defined at file scope without static
		my ($var) = $lines[$i] =~
		  /^(?!static\b|extern\b|typedef\b|return\b)[A-Za-z_][\w ]*?[\s*]([A-Za-z_]\w*)\s*(?:=[^=]|;)/;
		$defines{$var} = $rel if defined $var;
	}
}
my %edges;
for my $rel (sort keys %text) {
	my %seen;
	for my $name ($text{$rel} =~ /\b([A-Za-z_]\w*)\b/g) {
		my $to = $defines{$name};
		next if !defined $to || $to eq $rel || $seen{$to}++;
		$edges{$rel}{$to} = $name;
	}
}
# a circle: a file reached again from itself (depth-first, each start)
my %reported;
for my $start (sort keys %edges) {
	my @stack = ([$start, [$start]]);
	my %visited;
	while (my $top = pop @stack) {
		my ($at, $path) = @$top;
		for my $to (sort keys %{ $edges{$at} // {} }) {
			if ($to eq $start) {
				my $key = join ' ', sort @$path;
				next if $reported{$key}++;
				check(0, "a circle of calls: " . join(' -> ', map { "src/$_" } @$path, $start)
					. " (" . join(', ', map { $edges{$path->[$_]}{$_ < $#$path ? $path->[$_ + 1] : $start} } 0 .. $#$path) . ")");
				next;
			}
			next if $visited{$to}++;
			push @stack, [$to, [@$path, $to]];
		}
	}
}
check(!%reported, "no circle of calls between the files of src/") if !%reported;

printf "check-house: %d files; layers, sizes, circles and doc/architecture.md checked\n", scalar @files;
print "check-house: $passed passed, $failed failed\n";
exit($failed ? 1 : 0);
