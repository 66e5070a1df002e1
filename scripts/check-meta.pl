#!/usr/bin/perl
# scripts/check-meta.pl [META.json [CONTROL]]: checks the PGXN distribution
# metadata against the PGXN Meta Spec 1.0.0 (required keys and their types,
# semantic versions, licence names, release status, custom keys) and against
# the extension: every provided file exists, the distribution's and the
# extension's versions are the control file's default_version (1.1 is
# 1.1.0).  Prints each problem; exits 1 if there is any.
use strict;
use warnings;
use JSON::PP;

my $meta_file = shift // 'META.json';
my $control_file = shift // 'bloomfilter.control';
my @problems;
sub problem { push @problems, join('', @_) }

my $meta = eval {
	open my $fh, '<:raw', $meta_file or die "cannot read $meta_file: $!\n";
	local $/;
	JSON::PP->new->utf8->decode(<$fh>);
};
if (!$meta)
{
	print "$meta_file: not valid JSON: $@";
	exit 1;
}
die "$meta_file: the top level is not an object\n" unless ref $meta eq 'HASH';

# Semantic Versioning 1.0.0, as the spec requires: MAJOR.MINOR.PATCH with an
# optional alphanumeric pre-release part glued to the patch number.
my $semver = qr/^(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)(?:[a-zA-Z][0-9a-zA-Z-]*)?$/;
my %licenses = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2
  bsd freebsd gfdl_1_2 gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0
  mozilla_1_1 openssl perl_5 postgresql qpl_1_0 ssleay sun zlib open_source
  restricted unrestricted unknown);
my %top = map { $_ => 1 } qw(name version abstract maintainer license provides meta-spec
  description generated_by tags no_index prereqs release_status resources);

sub is_string { defined $_[0] && !ref $_[0] && length $_[0] }
sub strings   { my $v = shift; ref $v eq 'ARRAY' ? (@$v && !grep { !is_string($_) } @$v) : is_string($v) }

for my $key (qw(name version abstract maintainer license provides meta-spec))
{
	problem("required key \"$key\" is missing") unless exists $meta->{$key};
}
for my $key (sort keys %$meta)
{
	problem("unknown key \"$key\" (custom keys start with x_ or X_)")
	  unless $top{$key} || $key =~ /^[xX]_/;
}
problem('name must be a string of 2 or more characters without spaces, / or \\')
  unless is_string($meta->{name}) && $meta->{name} =~ m{^[^\s/\\]{2,}$};
problem("version \"", $meta->{version} // '', "\" is not a semantic version")
  unless is_string($meta->{version}) && $meta->{version} =~ $semver;
problem('abstract must be a string') unless is_string($meta->{abstract});
problem('maintainer must be a string or a list of strings') unless strings($meta->{maintainer});

my $license = $meta->{license};
if (ref $license eq 'HASH')
{
	problem('license: a map of names to URLs') if !%$license || grep { !is_string($_) } values %$license;
}
elsif (!strings($license) || grep { !$licenses{$_} } (ref $license ? @$license : $license))
{
	problem('license must name licences of the spec (e.g. "postgresql")');
}

my $spec = $meta->{'meta-spec'};
problem('meta-spec must be {"version": "1.0.0", ...}')
  unless ref $spec eq 'HASH' && ($spec->{version} // '') eq '1.0.0';
problem('release_status must be stable, testing or unstable')
  if exists $meta->{release_status} && ($meta->{release_status} // '') !~ /^(stable|testing|unstable)$/;
problem('tags must be a list of strings') if exists $meta->{tags} && !(ref $meta->{tags} eq 'ARRAY' && strings($meta->{tags}));

if (ref $meta->{prereqs} eq 'HASH')
{
	for my $phase (sort keys %{ $meta->{prereqs} })
	{
		problem("prereqs: unknown phase \"$phase\"") unless $phase =~ /^(configure|build|test|runtime|develop)$/;
		my $rels = $meta->{prereqs}{$phase};
		next unless ref $rels eq 'HASH';
		for my $rel (sort keys %$rels)
		{
			problem("prereqs.$phase: unknown relationship \"$rel\"")
			  unless $rel =~ /^(requires|recommends|suggests|conflicts)$/;
			for my $name (sort keys %{ $rels->{$rel} // {} })
			{
				my $v = $rels->{$rel}{$name};
				problem("prereqs.$phase.$rel.$name: \"$v\" is neither 0 nor a semantic version (range)")
				  unless $v =~ /^0$/ || $v =~ /^(?:(?:[<>]=?|==|!=)\s*)?\d+\.\d+\.\d+\S*(?:\s*,\s*(?:[<>]=?|==|!=)\s*\d+\.\d+\.\d+\S*)*$/;
			}
		}
	}
}

# the control file's default_version, as a semantic version
my $default;
if (open my $ctl, '<', $control_file)
{
	while (<$ctl>) { $default = $1 if /^\s*default_version\s*=\s*'([^']*)'/ }
}
problem("$control_file: no default_version") unless defined $default;
my $expected = defined $default ? ($default =~ /^\d+\.\d+$/ ? "$default.0" : $default) : '';
problem("version is \"$meta->{version}\" but $control_file says $default (expected \"$expected\")")
  if defined $default && is_string($meta->{version}) && $meta->{version} ne $expected;

if (ref $meta->{provides} eq 'HASH' && %{ $meta->{provides} })
{
	for my $ext (sort keys %{ $meta->{provides} })
	{
		my $p = $meta->{provides}{$ext};
		if (ref $p ne 'HASH') { problem("provides.$ext must be an object"); next }
		problem("provides.$ext.file is required") unless is_string($p->{file});
		problem("provides.$ext.file: $p->{file} does not exist") if is_string($p->{file}) && !-f $p->{file};
		problem("provides.$ext.docfile: $p->{docfile} does not exist") if defined $p->{docfile} && !-f $p->{docfile};
		problem("provides.$ext.version \"", $p->{version} // '', "\" is not a semantic version")
		  unless is_string($p->{version}) && $p->{version} =~ $semver;
		problem("provides.$ext.version is \"$p->{version}\" but $control_file says $default (expected \"$expected\")")
		  if defined $default && $ext eq 'bloomfilter' && is_string($p->{version}) && $p->{version} ne $expected;
	}
	problem('provides lacks the bloomfilter extension') unless $meta->{provides}{bloomfilter};
}
else
{
	problem('provides must name at least one extension');
}

print "$meta_file: $_\n" for @problems;
exit(@problems ? 1 : 0);
