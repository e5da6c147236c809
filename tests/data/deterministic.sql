-- Deterministic functions and operators of pgbench's language. pgbench and pgarena both run
-- this once (simple protocol) into their own table; the tables must be equal.
\set i01 abs(-17)
\set i02 abs(-2.5)
\set i03 least(5, 3, 9)
\set i04 greatest(5, 3.5, 2)
\set i05 int(7.9)
\set i06 int(-7.9)
\set i07 double(7) / 2
\set i08 exp(1.5)
\set i09 ln(10)
\set i10 sqrt(2)
\set i11 pow(2, 10)
\set i12 power(2.5, 3)
\set i13 pi()
\set i14 mod(-17, 5)
\set i15 -17 % 5
\set i16 hash(12345, 42)
\set i17 hash_fnv1a(12345, 42)
\set i18 hash_murmur2(-9876543210, 7)
\set i19 permute(17, 1000, 12345)
\set i20 permute(0, 10, 99)
\set i21 (1 << 40) | 255
\set i22 ~12345 # 777 & 4095
\set i23 9223372036854775807 / 3 * 2 - 1
\set i24 CASE WHEN 3 > 2 AND NOT (1 = 0) THEN 1.5e3 ELSE 0 END
\set i25 CASE WHEN :i01 IS NULL THEN 1 WHEN 5 <> 5 THEN 2 ELSE 3 END
\set i26 (7 >= 7) OR false
\set i27 1.0 / 3
\set i28 -9223372036854775808 / 7
\set i29 1e300 * 10
\set i30 random(5, 5)
\set i31 hash(:i19, :i20)
\set i32 permute(:i16 % 1000000, 1000000, :i17)
\set i33 least(:i27, :i10) * greatest(-1, :i14)
\set i34 2.5 * 4 = 10 AND 3 != 4
\set i35 (-7) / 2 + (-7) % 2 + 7 / -2
SELECT :i16 + 1 AS g, 'x' || 'y' AS h \gset
\if :i26
\set i36 1
\elif true
\set i36 2
\else
\set i36 3
\endif
INSERT INTO :tbl (k, v) VALUES ('i01', ':i01'), ('i02', ':i02'), ('i03', ':i03'), ('i04', ':i04'),
  ('i05', ':i05'), ('i06', ':i06'), ('i07', ':i07'), ('i08', ':i08'), ('i09', ':i09'),
  ('i10', ':i10'), ('i11', ':i11'), ('i12', ':i12'), ('i13', ':i13'), ('i14', ':i14'),
  ('i15', ':i15'), ('i16', ':i16'), ('i17', ':i17'), ('i18', ':i18'), ('i19', ':i19'),
  ('i20', ':i20'), ('i21', ':i21'), ('i22', ':i22'), ('i23', ':i23'), ('i24', ':i24'),
  ('i25', ':i25'), ('i26', ':i26'), ('i27', ':i27'), ('i28', ':i28'), ('i29', ':i29'),
  ('i30', ':i30'), ('i31', ':i31'), ('i32', ':i32'), ('i33', ':i33'), ('i34', ':i34'),
  ('i35', ':i35'), ('i36', ':i36'), ('g', ':g'), ('h', ':h');
