\set a abs(-3) + least(1, 2.5) * greatest(3, 4) - int(5.5) + double(2) / pow(2, 3) + sqrt(16) + ln(exp(1)) + pi() + mod(7, 3) + (1 << 3) + (16 >> 2) + (5 & 3) + (5 | 3) + (5 # 3) + ~5
\set r random_gaussian(1, 10, 2.5) + random_exponential(1, 10, 2.0) + random_zipfian(1, 10, 1.5) + hash_fnv1a(1) + hash_murmur2(1, 2)
