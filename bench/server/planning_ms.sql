-- planning_ms(query): the "Planning Time" EXPLAIN (SUMMARY ON) reports for
-- query, in ms; read by the summary benchmarks (summary_reads.sh,
-- summary_planning.sh, summary_targets.sql).
CREATE FUNCTION planning_ms(query text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (SUMMARY ON, COSTS OFF) ' || query LOOP
		IF line LIKE 'Planning Time:%' THEN
			RETURN substring(line FROM '([0-9.]+) ms')::float8;
		END IF;
	END LOOP;
END
$$;
