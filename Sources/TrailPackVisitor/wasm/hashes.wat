;; SHA-256 (FIPS 180-4) and BLAKE2b-512 (RFC 7693) compression for the visitor app, written by hand.
;;
;; Regenerate the committed binary (from this folder, wabt 1.0.32):
;;   wat2wasm hashes.wat -o ../app/js/hashes.wasm
;; Tests/VisitorAppJS/fasthash.test.mjs checks that this gives exactly the committed file.
;;
;; The JavaScript side (app/js/fasthash.js) copies input into the buffer, keeps partial blocks and
;; pads; this module only compresses whole blocks. Every hasher's state lives in linear memory at
;; a pointer the caller passes, so any number of hashers share one instance. Beyond the MVP it
;; uses fixed-width SIMD (v128) for SHA-256's message schedule (SHA-256 is 1.6 times as fast so)
;; and bulk memory (memory.fill): Chrome 91, Firefox 89, Safari 16.4, Node 16.4 and later. Where
;; they are missing the module does not compile and fasthash.js falls back to JavaScript.
;;
;; Linear memory (17 pages, exported as "memory"):
;;   0x00000  SHA-256 round constants K[0..63] (i32)             written by the start function
;;   0x00100  BLAKE2b IV[0..7] (i64)                              written by the start function
;;   0x00140  BLAKE2b message schedule SIGMA, 12 rounds x 16 bytes, each a byte offset (8 x index)
;;   0x00300  SHA-256 W[t] + K[t], t = 0..63 (i32 scratch)
;;   0x01000  hasher slots, 256 bytes each, up to 0x10000 (global "slots", "slot_size", "slots_end"):
;;              SHA-256:  +0 H[0..7] (i32, native order)
;;              BLAKE2b:  +0 h[0..7] (i64, native order = the digest bytes), +64 t (i64: bytes hashed)
;;              +128: 128 bytes the caller uses for its partial block and padding
;;   0x10000  the input buffer, 1 MiB (global "buffer", "buffer_size")
(module
  (memory (export "memory") 17)
  (global (export "slots") i32 (i32.const 0x1000))
  (global (export "slot_size") i32 (i32.const 0x100))
  (global (export "slots_end") i32 (i32.const 0x10000))
  (global (export "buffer") i32 (i32.const 0x10000))
  (global (export "buffer_size") i32 (i32.const 0x100000))

  ;; SIGMA (RFC 7693 section 2.7) as message word indices; rounds 10 and 11 repeat rows 0 and 1.
  ;; The start function turns each index into a byte offset (x 8).
  (data (i32.const 0x140)
    "\00\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\0f"
    "\0e\0a\04\08\09\0f\0d\06\01\0c\00\02\0b\07\05\03"
    "\0b\08\0c\00\05\02\0f\0d\0a\0e\03\06\07\01\09\04"
    "\07\09\03\01\0d\0c\0b\0e\02\06\05\0a\04\00\0f\08"
    "\09\00\05\07\02\04\0a\0f\0e\01\0b\0c\06\08\03\0d"
    "\02\0c\06\0a\00\0b\08\03\04\0d\07\05\0f\0e\01\09"
    "\0c\05\01\0f\0e\0d\04\0a\00\07\06\03\09\02\08\0b"
    "\0d\0b\07\0e\0c\01\03\09\05\00\0f\04\08\06\02\0a"
    "\06\0f\0e\09\0b\03\00\08\0c\02\0d\07\01\04\0a\05"
    "\0a\02\08\04\07\06\01\05\0f\0b\09\0e\03\0c\0d\00"
    "\00\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\0f"
    "\0e\0a\04\08\09\0f\0d\06\01\0c\00\02\0b\07\05\03")

  (start $tables)
  (func $tables
    (local $i i32)
    ;; SHA-256 K: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    (i32.store offset=0x00 (i32.const 0) (i32.const 0x428a2f98))
    (i32.store offset=0x04 (i32.const 0) (i32.const 0x71374491))
    (i32.store offset=0x08 (i32.const 0) (i32.const 0xb5c0fbcf))
    (i32.store offset=0x0c (i32.const 0) (i32.const 0xe9b5dba5))
    (i32.store offset=0x10 (i32.const 0) (i32.const 0x3956c25b))
    (i32.store offset=0x14 (i32.const 0) (i32.const 0x59f111f1))
    (i32.store offset=0x18 (i32.const 0) (i32.const 0x923f82a4))
    (i32.store offset=0x1c (i32.const 0) (i32.const 0xab1c5ed5))
    (i32.store offset=0x20 (i32.const 0) (i32.const 0xd807aa98))
    (i32.store offset=0x24 (i32.const 0) (i32.const 0x12835b01))
    (i32.store offset=0x28 (i32.const 0) (i32.const 0x243185be))
    (i32.store offset=0x2c (i32.const 0) (i32.const 0x550c7dc3))
    (i32.store offset=0x30 (i32.const 0) (i32.const 0x72be5d74))
    (i32.store offset=0x34 (i32.const 0) (i32.const 0x80deb1fe))
    (i32.store offset=0x38 (i32.const 0) (i32.const 0x9bdc06a7))
    (i32.store offset=0x3c (i32.const 0) (i32.const 0xc19bf174))
    (i32.store offset=0x40 (i32.const 0) (i32.const 0xe49b69c1))
    (i32.store offset=0x44 (i32.const 0) (i32.const 0xefbe4786))
    (i32.store offset=0x48 (i32.const 0) (i32.const 0x0fc19dc6))
    (i32.store offset=0x4c (i32.const 0) (i32.const 0x240ca1cc))
    (i32.store offset=0x50 (i32.const 0) (i32.const 0x2de92c6f))
    (i32.store offset=0x54 (i32.const 0) (i32.const 0x4a7484aa))
    (i32.store offset=0x58 (i32.const 0) (i32.const 0x5cb0a9dc))
    (i32.store offset=0x5c (i32.const 0) (i32.const 0x76f988da))
    (i32.store offset=0x60 (i32.const 0) (i32.const 0x983e5152))
    (i32.store offset=0x64 (i32.const 0) (i32.const 0xa831c66d))
    (i32.store offset=0x68 (i32.const 0) (i32.const 0xb00327c8))
    (i32.store offset=0x6c (i32.const 0) (i32.const 0xbf597fc7))
    (i32.store offset=0x70 (i32.const 0) (i32.const 0xc6e00bf3))
    (i32.store offset=0x74 (i32.const 0) (i32.const 0xd5a79147))
    (i32.store offset=0x78 (i32.const 0) (i32.const 0x06ca6351))
    (i32.store offset=0x7c (i32.const 0) (i32.const 0x14292967))
    (i32.store offset=0x80 (i32.const 0) (i32.const 0x27b70a85))
    (i32.store offset=0x84 (i32.const 0) (i32.const 0x2e1b2138))
    (i32.store offset=0x88 (i32.const 0) (i32.const 0x4d2c6dfc))
    (i32.store offset=0x8c (i32.const 0) (i32.const 0x53380d13))
    (i32.store offset=0x90 (i32.const 0) (i32.const 0x650a7354))
    (i32.store offset=0x94 (i32.const 0) (i32.const 0x766a0abb))
    (i32.store offset=0x98 (i32.const 0) (i32.const 0x81c2c92e))
    (i32.store offset=0x9c (i32.const 0) (i32.const 0x92722c85))
    (i32.store offset=0xa0 (i32.const 0) (i32.const 0xa2bfe8a1))
    (i32.store offset=0xa4 (i32.const 0) (i32.const 0xa81a664b))
    (i32.store offset=0xa8 (i32.const 0) (i32.const 0xc24b8b70))
    (i32.store offset=0xac (i32.const 0) (i32.const 0xc76c51a3))
    (i32.store offset=0xb0 (i32.const 0) (i32.const 0xd192e819))
    (i32.store offset=0xb4 (i32.const 0) (i32.const 0xd6990624))
    (i32.store offset=0xb8 (i32.const 0) (i32.const 0xf40e3585))
    (i32.store offset=0xbc (i32.const 0) (i32.const 0x106aa070))
    (i32.store offset=0xc0 (i32.const 0) (i32.const 0x19a4c116))
    (i32.store offset=0xc4 (i32.const 0) (i32.const 0x1e376c08))
    (i32.store offset=0xc8 (i32.const 0) (i32.const 0x2748774c))
    (i32.store offset=0xcc (i32.const 0) (i32.const 0x34b0bcb5))
    (i32.store offset=0xd0 (i32.const 0) (i32.const 0x391c0cb3))
    (i32.store offset=0xd4 (i32.const 0) (i32.const 0x4ed8aa4a))
    (i32.store offset=0xd8 (i32.const 0) (i32.const 0x5b9cca4f))
    (i32.store offset=0xdc (i32.const 0) (i32.const 0x682e6ff3))
    (i32.store offset=0xe0 (i32.const 0) (i32.const 0x748f82ee))
    (i32.store offset=0xe4 (i32.const 0) (i32.const 0x78a5636f))
    (i32.store offset=0xe8 (i32.const 0) (i32.const 0x84c87814))
    (i32.store offset=0xec (i32.const 0) (i32.const 0x8cc70208))
    (i32.store offset=0xf0 (i32.const 0) (i32.const 0x90befffa))
    (i32.store offset=0xf4 (i32.const 0) (i32.const 0xa4506ceb))
    (i32.store offset=0xf8 (i32.const 0) (i32.const 0xbef9a3f7))
    (i32.store offset=0xfc (i32.const 0) (i32.const 0xc67178f2))
    ;; BLAKE2b IV: SHA-512's initial hash value (the square roots of the first 8 primes, 64 bits).
    (i64.store offset=0x100 (i32.const 0) (i64.const 0x6a09e667f3bcc908))
    (i64.store offset=0x108 (i32.const 0) (i64.const 0xbb67ae8584caa73b))
    (i64.store offset=0x110 (i32.const 0) (i64.const 0x3c6ef372fe94f82b))
    (i64.store offset=0x118 (i32.const 0) (i64.const 0xa54ff53a5f1d36f1))
    (i64.store offset=0x120 (i32.const 0) (i64.const 0x510e527fade682d1))
    (i64.store offset=0x128 (i32.const 0) (i64.const 0x9b05688c2b3e6c1f))
    (i64.store offset=0x130 (i32.const 0) (i64.const 0x1f83d9abfb41bd6b))
    (i64.store offset=0x138 (i32.const 0) (i64.const 0x5be0cd19137e2179))
    ;; SIGMA: word indices to byte offsets.
    (local.set $i (i32.const 0x140))
    (loop $scale
      (i32.store8 (local.get $i) (i32.shl (i32.load8_u (local.get $i)) (i32.const 3)))
      (br_if $scale (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 0x200)))))

  ;; ---------------------------------------------------------------------------------------------
  ;; SHA-256

  ;; Sets the state at $s to the initial hash value H(0).
  (func (export "sha256_init") (param $s i32)
    (i32.store offset=0 (local.get $s) (i32.const 0x6a09e667))
    (i32.store offset=4 (local.get $s) (i32.const 0xbb67ae85))
    (i32.store offset=8 (local.get $s) (i32.const 0x3c6ef372))
    (i32.store offset=12 (local.get $s) (i32.const 0xa54ff53a))
    (i32.store offset=16 (local.get $s) (i32.const 0x510e527f))
    (i32.store offset=20 (local.get $s) (i32.const 0x9b05688c))
    (i32.store offset=24 (local.get $s) (i32.const 0x1f83d9ab))
    (i32.store offset=28 (local.get $s) (i32.const 0x5be0cd19)))

  ;; Compresses the $n 64-byte blocks at $p into the state at $s.
  ;;
  ;; The working variables a..h are locals; round j of each group of eight uses them rotated by j,
  ;; so no moves are needed. Maj(a, b, c) = b ^ ((a ^ b) & (b ^ c)), where b ^ c is the previous
  ;; round's a ^ b: $x0 and $x1 carry it from round to round.
  ;;
  ;; The message schedule is four words to a vector (SIMD), and W[t] + K[t] is kept at 0x300 for
  ;; the rounds. W[0..15] are the block's words, big-endian; W[16..63] are computed eight at a
  ;; time in each group of rounds (while the scalar rounds run), sixteen words ahead of use:
  ;;   W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], with
  ;;   σ0(x) = ROTR7(x) ^ ROTR18(x) ^ SHR3(x) and σ1(x) = ROTR17(x) ^ ROTR19(x) ^ SHR10(x).
  ;; $w0..$w3 hold W[t-16..t-1], oldest first; four new words replace the oldest vector. σ0 and
  ;; W[t-7] are four-wide; σ1 takes W[t-2], W[t-1] for the first two new words, and then those two
  ;; for the last two.
  (func (export "sha256_blocks") (param $s i32) (param $p i32) (param $n i32)
    (local $a i32) (local $b i32) (local $c i32) (local $d i32)
    (local $e i32) (local $f i32) (local $g i32) (local $h i32)
    (local $t i32) (local $x0 i32) (local $x1 i32) (local $i i32)
    (local $w0 v128) (local $w1 v128) (local $w2 v128) (local $w3 v128) (local $y v128) (local $z v128)
    (block $done
      (loop $block
        (br_if $done (i32.eqz (local.get $n)))
        ;; W[0..15], and W + K for rounds 0..15
        (local.set $w0 (v128.load offset=0 (local.get $p)))
        (local.set $w0 (i8x16.shuffle 3 2 1 0 7 6 5 4 11 10 9 8 15 14 13 12 (local.get $w0) (local.get $w0)))
        (local.set $w1 (v128.load offset=16 (local.get $p)))
        (local.set $w1 (i8x16.shuffle 3 2 1 0 7 6 5 4 11 10 9 8 15 14 13 12 (local.get $w1) (local.get $w1)))
        (local.set $w2 (v128.load offset=32 (local.get $p)))
        (local.set $w2 (i8x16.shuffle 3 2 1 0 7 6 5 4 11 10 9 8 15 14 13 12 (local.get $w2) (local.get $w2)))
        (local.set $w3 (v128.load offset=48 (local.get $p)))
        (local.set $w3 (i8x16.shuffle 3 2 1 0 7 6 5 4 11 10 9 8 15 14 13 12 (local.get $w3) (local.get $w3)))
        (v128.store offset=0x300 (i32.const 0) (i32x4.add (local.get $w0) (v128.load offset=0x00 (i32.const 0))))
        (v128.store offset=0x310 (i32.const 0) (i32x4.add (local.get $w1) (v128.load offset=0x10 (i32.const 0))))
        (v128.store offset=0x320 (i32.const 0) (i32x4.add (local.get $w2) (v128.load offset=0x20 (i32.const 0))))
        (v128.store offset=0x330 (i32.const 0) (i32x4.add (local.get $w3) (v128.load offset=0x30 (i32.const 0))))
        (local.set $a (i32.load offset=0 (local.get $s)))
        (local.set $b (i32.load offset=4 (local.get $s)))
        (local.set $c (i32.load offset=8 (local.get $s)))
        (local.set $d (i32.load offset=12 (local.get $s)))
        (local.set $e (i32.load offset=16 (local.get $s)))
        (local.set $f (i32.load offset=20 (local.get $s)))
        (local.set $g (i32.load offset=24 (local.get $s)))
        (local.set $h (i32.load offset=28 (local.get $s)))
        (local.set $x0 (i32.xor (local.get $b) (local.get $c)))
        ;; 64 rounds, eight at a time ($i = 4 x the first round's number):
        ;;   T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t];  T2 = Σ0(a) + Maj(a, b, c);
        ;;   d += T1;  h = T1 + T2  (then the names shift by one), with
        ;;   Σ0(a) = ROTR2 ^ ROTR13 ^ ROTR22, Σ1(e) = ROTR6 ^ ROTR11 ^ ROTR25, Ch = g ^ (e & (f ^ g)).
        (local.set $i (i32.const 0))
        (loop $rounds
          ;; W[u..u+7] (u = t + 16) and W + K at 0x300 + 4u, for the rounds two groups on
          (if (i32.lt_u (local.get $i) (i32.const 192)) (then
            ;; W[u..u+3] into $w0 (from $w0 oldest, $w1, $w2, $w3 newest): first
            ;; $z = W[u-16..u-13] + W[u-7..u-4] + σ0(W[u-15..u-12])
            (local.set $y (i8x16.shuffle 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 (local.get $w0) (local.get $w1)))
            (local.set $z (i8x16.shuffle 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 (local.get $w2) (local.get $w3)))
            (local.set $z (i32x4.add (i32x4.add (local.get $w0) (local.get $z))
              (v128.xor
                (v128.xor
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 7)) (i32x4.shl (local.get $y) (i32.const 25)))
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 18)) (i32x4.shl (local.get $y) (i32.const 14))))
                (i32x4.shr_u (local.get $y) (i32.const 3)))))
            ;; lanes 0, 1: + σ1(W[u-2], W[u-1])
            (local.set $y (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $w3) (local.get $w3)))
            (local.set $y (i32x4.add (local.get $z)
              (v128.xor
                (v128.xor
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 17)) (i32x4.shl (local.get $y) (i32.const 15)))
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 19)) (i32x4.shl (local.get $y) (i32.const 13))))
                (i32x4.shr_u (local.get $y) (i32.const 10)))))
            ;; lanes 2, 3: + σ1(W[u], W[u+1])
            (local.set $y (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $y) (local.get $y)))
            (local.set $z (i32x4.add (local.get $z)
              (v128.xor
                (v128.xor
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 17)) (i32x4.shl (local.get $y) (i32.const 15)))
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 19)) (i32x4.shl (local.get $y) (i32.const 13))))
                (i32x4.shr_u (local.get $y) (i32.const 10)))))
            (local.set $w0 (i8x16.shuffle 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31 (local.get $y) (local.get $z)))
            (v128.store offset=0x340 (local.get $i) (i32x4.add (local.get $w0) (v128.load offset=0x40 (local.get $i))))
            ;; W[u+4..u+7] into $w1 (from $w1 oldest, $w2, $w3, $w0 newest), the same way
            (local.set $y (i8x16.shuffle 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 (local.get $w1) (local.get $w2)))
            (local.set $z (i8x16.shuffle 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 (local.get $w3) (local.get $w0)))
            (local.set $z (i32x4.add (i32x4.add (local.get $w1) (local.get $z))
              (v128.xor
                (v128.xor
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 7)) (i32x4.shl (local.get $y) (i32.const 25)))
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 18)) (i32x4.shl (local.get $y) (i32.const 14))))
                (i32x4.shr_u (local.get $y) (i32.const 3)))))
            (local.set $y (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $w0) (local.get $w0)))
            (local.set $y (i32x4.add (local.get $z)
              (v128.xor
                (v128.xor
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 17)) (i32x4.shl (local.get $y) (i32.const 15)))
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 19)) (i32x4.shl (local.get $y) (i32.const 13))))
                (i32x4.shr_u (local.get $y) (i32.const 10)))))
            (local.set $y (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $y) (local.get $y)))
            (local.set $z (i32x4.add (local.get $z)
              (v128.xor
                (v128.xor
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 17)) (i32x4.shl (local.get $y) (i32.const 15)))
                  (v128.or (i32x4.shr_u (local.get $y) (i32.const 19)) (i32x4.shl (local.get $y) (i32.const 13))))
                (i32x4.shr_u (local.get $y) (i32.const 10)))))
            (local.set $w1 (i8x16.shuffle 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31 (local.get $y) (local.get $z)))
            (v128.store offset=0x350 (local.get $i) (i32x4.add (local.get $w1) (v128.load offset=0x50 (local.get $i))))
            ;; the two new vectors are now the newest: ($w0 $w1 $w2 $w3) = ($w2 $w3 $w0 $w1)
            (local.set $y (local.get $w0)) (local.set $w0 (local.get $w2)) (local.set $w2 (local.get $y))
            (local.set $y (local.get $w1)) (local.set $w1 (local.get $w3)) (local.set $w3 (local.get $y))))
          ;; round 0: a b c d e f g h
          (local.set $t (i32.add (i32.add (local.get $h) (i32.load offset=0x300 (local.get $i)))
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $e) (i32.const 6)) (i32.rotr (local.get $e) (i32.const 11)))
                              (i32.rotr (local.get $e) (i32.const 25)))
                     (i32.xor (local.get $g) (i32.and (local.get $e) (i32.xor (local.get $f) (local.get $g)))))))
          (local.set $d (i32.add (local.get $d) (local.get $t)))
          (local.set $x1 (i32.xor (local.get $a) (local.get $b)))
          (local.set $h (i32.add (local.get $t)
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $a) (i32.const 2)) (i32.rotr (local.get $a) (i32.const 13)))
                              (i32.rotr (local.get $a) (i32.const 22)))
                     (i32.xor (local.get $b) (i32.and (local.get $x1) (local.get $x0))))))
          ;; round 1: h a b c d e f g
          (local.set $t (i32.add (i32.add (local.get $g) (i32.load offset=0x304 (local.get $i)))
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $d) (i32.const 6)) (i32.rotr (local.get $d) (i32.const 11)))
                              (i32.rotr (local.get $d) (i32.const 25)))
                     (i32.xor (local.get $f) (i32.and (local.get $d) (i32.xor (local.get $e) (local.get $f)))))))
          (local.set $c (i32.add (local.get $c) (local.get $t)))
          (local.set $x0 (i32.xor (local.get $h) (local.get $a)))
          (local.set $g (i32.add (local.get $t)
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $h) (i32.const 2)) (i32.rotr (local.get $h) (i32.const 13)))
                              (i32.rotr (local.get $h) (i32.const 22)))
                     (i32.xor (local.get $a) (i32.and (local.get $x0) (local.get $x1))))))
          ;; round 2: g h a b c d e f
          (local.set $t (i32.add (i32.add (local.get $f) (i32.load offset=0x308 (local.get $i)))
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $c) (i32.const 6)) (i32.rotr (local.get $c) (i32.const 11)))
                              (i32.rotr (local.get $c) (i32.const 25)))
                     (i32.xor (local.get $e) (i32.and (local.get $c) (i32.xor (local.get $d) (local.get $e)))))))
          (local.set $b (i32.add (local.get $b) (local.get $t)))
          (local.set $x1 (i32.xor (local.get $g) (local.get $h)))
          (local.set $f (i32.add (local.get $t)
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $g) (i32.const 2)) (i32.rotr (local.get $g) (i32.const 13)))
                              (i32.rotr (local.get $g) (i32.const 22)))
                     (i32.xor (local.get $h) (i32.and (local.get $x1) (local.get $x0))))))
          ;; round 3: f g h a b c d e
          (local.set $t (i32.add (i32.add (local.get $e) (i32.load offset=0x30c (local.get $i)))
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $b) (i32.const 6)) (i32.rotr (local.get $b) (i32.const 11)))
                              (i32.rotr (local.get $b) (i32.const 25)))
                     (i32.xor (local.get $d) (i32.and (local.get $b) (i32.xor (local.get $c) (local.get $d)))))))
          (local.set $a (i32.add (local.get $a) (local.get $t)))
          (local.set $x0 (i32.xor (local.get $f) (local.get $g)))
          (local.set $e (i32.add (local.get $t)
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $f) (i32.const 2)) (i32.rotr (local.get $f) (i32.const 13)))
                              (i32.rotr (local.get $f) (i32.const 22)))
                     (i32.xor (local.get $g) (i32.and (local.get $x0) (local.get $x1))))))
          ;; round 4: e f g h a b c d
          (local.set $t (i32.add (i32.add (local.get $d) (i32.load offset=0x310 (local.get $i)))
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $a) (i32.const 6)) (i32.rotr (local.get $a) (i32.const 11)))
                              (i32.rotr (local.get $a) (i32.const 25)))
                     (i32.xor (local.get $c) (i32.and (local.get $a) (i32.xor (local.get $b) (local.get $c)))))))
          (local.set $h (i32.add (local.get $h) (local.get $t)))
          (local.set $x1 (i32.xor (local.get $e) (local.get $f)))
          (local.set $d (i32.add (local.get $t)
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $e) (i32.const 2)) (i32.rotr (local.get $e) (i32.const 13)))
                              (i32.rotr (local.get $e) (i32.const 22)))
                     (i32.xor (local.get $f) (i32.and (local.get $x1) (local.get $x0))))))
          ;; round 5: d e f g h a b c
          (local.set $t (i32.add (i32.add (local.get $c) (i32.load offset=0x314 (local.get $i)))
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $h) (i32.const 6)) (i32.rotr (local.get $h) (i32.const 11)))
                              (i32.rotr (local.get $h) (i32.const 25)))
                     (i32.xor (local.get $b) (i32.and (local.get $h) (i32.xor (local.get $a) (local.get $b)))))))
          (local.set $g (i32.add (local.get $g) (local.get $t)))
          (local.set $x0 (i32.xor (local.get $d) (local.get $e)))
          (local.set $c (i32.add (local.get $t)
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $d) (i32.const 2)) (i32.rotr (local.get $d) (i32.const 13)))
                              (i32.rotr (local.get $d) (i32.const 22)))
                     (i32.xor (local.get $e) (i32.and (local.get $x0) (local.get $x1))))))
          ;; round 6: c d e f g h a b
          (local.set $t (i32.add (i32.add (local.get $b) (i32.load offset=0x318 (local.get $i)))
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $g) (i32.const 6)) (i32.rotr (local.get $g) (i32.const 11)))
                              (i32.rotr (local.get $g) (i32.const 25)))
                     (i32.xor (local.get $a) (i32.and (local.get $g) (i32.xor (local.get $h) (local.get $a)))))))
          (local.set $f (i32.add (local.get $f) (local.get $t)))
          (local.set $x1 (i32.xor (local.get $c) (local.get $d)))
          (local.set $b (i32.add (local.get $t)
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $c) (i32.const 2)) (i32.rotr (local.get $c) (i32.const 13)))
                              (i32.rotr (local.get $c) (i32.const 22)))
                     (i32.xor (local.get $d) (i32.and (local.get $x1) (local.get $x0))))))
          ;; round 7: b c d e f g h a
          (local.set $t (i32.add (i32.add (local.get $a) (i32.load offset=0x31c (local.get $i)))
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $f) (i32.const 6)) (i32.rotr (local.get $f) (i32.const 11)))
                              (i32.rotr (local.get $f) (i32.const 25)))
                     (i32.xor (local.get $h) (i32.and (local.get $f) (i32.xor (local.get $g) (local.get $h)))))))
          (local.set $e (i32.add (local.get $e) (local.get $t)))
          (local.set $x0 (i32.xor (local.get $b) (local.get $c)))
          (local.set $a (i32.add (local.get $t)
            (i32.add (i32.xor (i32.xor (i32.rotr (local.get $b) (i32.const 2)) (i32.rotr (local.get $b) (i32.const 13)))
                              (i32.rotr (local.get $b) (i32.const 22)))
                     (i32.xor (local.get $c) (i32.and (local.get $x0) (local.get $x1))))))
          (br_if $rounds (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 32))) (i32.const 256))))
        ;; H(i) = H(i-1) + (a, b, ..., h)
        (i32.store offset=0 (local.get $s) (i32.add (i32.load offset=0 (local.get $s)) (local.get $a)))
        (i32.store offset=4 (local.get $s) (i32.add (i32.load offset=4 (local.get $s)) (local.get $b)))
        (i32.store offset=8 (local.get $s) (i32.add (i32.load offset=8 (local.get $s)) (local.get $c)))
        (i32.store offset=12 (local.get $s) (i32.add (i32.load offset=12 (local.get $s)) (local.get $d)))
        (i32.store offset=16 (local.get $s) (i32.add (i32.load offset=16 (local.get $s)) (local.get $e)))
        (i32.store offset=20 (local.get $s) (i32.add (i32.load offset=20 (local.get $s)) (local.get $f)))
        (i32.store offset=24 (local.get $s) (i32.add (i32.load offset=24 (local.get $s)) (local.get $g)))
        (i32.store offset=28 (local.get $s) (i32.add (i32.load offset=28 (local.get $s)) (local.get $h)))
        (local.set $p (i32.add (local.get $p) (i32.const 64)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $block))))

  ;; ---------------------------------------------------------------------------------------------
  ;; BLAKE2b-512, unkeyed

  ;; Sets the state at $s to h = IV with parameter block word 0x01010040 (digest length 64, no key,
  ;; fanout 1, depth 1) and the byte counter t to 0.
  (func (export "blake2b_init") (param $s i32)
    (i64.store offset=0 (local.get $s) (i64.xor (i64.load offset=0x100 (i32.const 0)) (i64.const 0x01010040)))
    (i64.store offset=8 (local.get $s) (i64.load offset=0x108 (i32.const 0)))
    (i64.store offset=16 (local.get $s) (i64.load offset=0x110 (i32.const 0)))
    (i64.store offset=24 (local.get $s) (i64.load offset=0x118 (i32.const 0)))
    (i64.store offset=32 (local.get $s) (i64.load offset=0x120 (i32.const 0)))
    (i64.store offset=40 (local.get $s) (i64.load offset=0x128 (i32.const 0)))
    (i64.store offset=48 (local.get $s) (i64.load offset=0x130 (i32.const 0)))
    (i64.store offset=56 (local.get $s) (i64.load offset=0x138 (i32.const 0)))
    (i64.store offset=64 (local.get $s) (i64.const 0)))

  ;; Compresses the $n 128-byte blocks at $p into the state at $s, none of them the last block.
  (func (export "blake2b_blocks") (param $s i32) (param $p i32) (param $n i32)
    (block $done
      (loop $block
        (br_if $done (i32.eqz (local.get $n)))
        (call $blake2b_compress (local.get $s) (local.get $p) (i64.const 128) (i64.const 0))
        (local.set $p (i32.add (local.get $p) (i32.const 128)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $block))))

  ;; Compresses the last block: the $len bytes (0 to 128) at $p, padded with zeros in place to 128
  ;; bytes (so $p must have room for 128). The digest is then the state's first 64 bytes.
  (func (export "blake2b_final") (param $s i32) (param $p i32) (param $len i32)
    (memory.fill (i32.add (local.get $p) (local.get $len)) (i32.const 0) (i32.sub (i32.const 128) (local.get $len)))
    (call $blake2b_compress (local.get $s) (local.get $p) (i64.extend_i32_u (local.get $len)) (i64.const -1)))

  ;; The compression function F (RFC 7693 section 3.2) on the block at $m: t += $count; the
  ;; final-block flag $f is all ones for the last block, else 0. The counter's high word stays 0
  ;; (2^64 bytes are out of reach).
  (func $blake2b_compress (param $s i32) (param $m i32) (param $count i64) (param $f i64)
    (local $v0 i64) (local $v1 i64) (local $v2 i64) (local $v3 i64)
    (local $v4 i64) (local $v5 i64) (local $v6 i64) (local $v7 i64)
    (local $v8 i64) (local $v9 i64) (local $v10 i64) (local $v11 i64)
    (local $v12 i64) (local $v13 i64) (local $v14 i64) (local $v15 i64)
    (local $t i64) (local $r i32)
    (local.set $t (i64.add (i64.load offset=64 (local.get $s)) (local.get $count)))
    (i64.store offset=64 (local.get $s) (local.get $t))
    (local.set $v0 (i64.load offset=0 (local.get $s)))
    (local.set $v1 (i64.load offset=8 (local.get $s)))
    (local.set $v2 (i64.load offset=16 (local.get $s)))
    (local.set $v3 (i64.load offset=24 (local.get $s)))
    (local.set $v4 (i64.load offset=32 (local.get $s)))
    (local.set $v5 (i64.load offset=40 (local.get $s)))
    (local.set $v6 (i64.load offset=48 (local.get $s)))
    (local.set $v7 (i64.load offset=56 (local.get $s)))
    (local.set $v8 (i64.load offset=0x100 (i32.const 0)))
    (local.set $v9 (i64.load offset=0x108 (i32.const 0)))
    (local.set $v10 (i64.load offset=0x110 (i32.const 0)))
    (local.set $v11 (i64.load offset=0x118 (i32.const 0)))
    (local.set $v12 (i64.xor (i64.load offset=0x120 (i32.const 0)) (local.get $t)))
    (local.set $v13 (i64.load offset=0x128 (i32.const 0)))
    (local.set $v14 (i64.xor (i64.load offset=0x130 (i32.const 0)) (local.get $f)))
    (local.set $v15 (i64.load offset=0x138 (i32.const 0)))
    ;; 12 rounds; $r walks SIGMA's rows. Each G(a, b, c, d) with message words x, y (RFC 7693 3.1):
    ;;   a = a + b + x; d = (d ^ a) >>> 32; c = c + d; b = (b ^ c) >>> 24;
    ;;   a = a + b + y; d = (d ^ a) >>> 16; c = c + d; b = (b ^ c) >>> 63.
    (local.set $r (i32.const 0x140))
    (loop $round
      ;; G(v0, v4, v8, v12) with m[σ0], m[σ1]
      (local.set $v0 (i64.add (i64.add (local.get $v0) (local.get $v4))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=0 (local.get $r))))))
      (local.set $v12 (i64.rotr (i64.xor (local.get $v12) (local.get $v0)) (i64.const 32)))
      (local.set $v8 (i64.add (local.get $v8) (local.get $v12)))
      (local.set $v4 (i64.rotr (i64.xor (local.get $v4) (local.get $v8)) (i64.const 24)))
      (local.set $v0 (i64.add (i64.add (local.get $v0) (local.get $v4))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=1 (local.get $r))))))
      (local.set $v12 (i64.rotr (i64.xor (local.get $v12) (local.get $v0)) (i64.const 16)))
      (local.set $v8 (i64.add (local.get $v8) (local.get $v12)))
      (local.set $v4 (i64.rotr (i64.xor (local.get $v4) (local.get $v8)) (i64.const 63)))
      ;; G(v1, v5, v9, v13) with m[σ2], m[σ3]
      (local.set $v1 (i64.add (i64.add (local.get $v1) (local.get $v5))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=2 (local.get $r))))))
      (local.set $v13 (i64.rotr (i64.xor (local.get $v13) (local.get $v1)) (i64.const 32)))
      (local.set $v9 (i64.add (local.get $v9) (local.get $v13)))
      (local.set $v5 (i64.rotr (i64.xor (local.get $v5) (local.get $v9)) (i64.const 24)))
      (local.set $v1 (i64.add (i64.add (local.get $v1) (local.get $v5))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=3 (local.get $r))))))
      (local.set $v13 (i64.rotr (i64.xor (local.get $v13) (local.get $v1)) (i64.const 16)))
      (local.set $v9 (i64.add (local.get $v9) (local.get $v13)))
      (local.set $v5 (i64.rotr (i64.xor (local.get $v5) (local.get $v9)) (i64.const 63)))
      ;; G(v2, v6, v10, v14) with m[σ4], m[σ5]
      (local.set $v2 (i64.add (i64.add (local.get $v2) (local.get $v6))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=4 (local.get $r))))))
      (local.set $v14 (i64.rotr (i64.xor (local.get $v14) (local.get $v2)) (i64.const 32)))
      (local.set $v10 (i64.add (local.get $v10) (local.get $v14)))
      (local.set $v6 (i64.rotr (i64.xor (local.get $v6) (local.get $v10)) (i64.const 24)))
      (local.set $v2 (i64.add (i64.add (local.get $v2) (local.get $v6))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=5 (local.get $r))))))
      (local.set $v14 (i64.rotr (i64.xor (local.get $v14) (local.get $v2)) (i64.const 16)))
      (local.set $v10 (i64.add (local.get $v10) (local.get $v14)))
      (local.set $v6 (i64.rotr (i64.xor (local.get $v6) (local.get $v10)) (i64.const 63)))
      ;; G(v3, v7, v11, v15) with m[σ6], m[σ7]
      (local.set $v3 (i64.add (i64.add (local.get $v3) (local.get $v7))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=6 (local.get $r))))))
      (local.set $v15 (i64.rotr (i64.xor (local.get $v15) (local.get $v3)) (i64.const 32)))
      (local.set $v11 (i64.add (local.get $v11) (local.get $v15)))
      (local.set $v7 (i64.rotr (i64.xor (local.get $v7) (local.get $v11)) (i64.const 24)))
      (local.set $v3 (i64.add (i64.add (local.get $v3) (local.get $v7))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=7 (local.get $r))))))
      (local.set $v15 (i64.rotr (i64.xor (local.get $v15) (local.get $v3)) (i64.const 16)))
      (local.set $v11 (i64.add (local.get $v11) (local.get $v15)))
      (local.set $v7 (i64.rotr (i64.xor (local.get $v7) (local.get $v11)) (i64.const 63)))
      ;; G(v0, v5, v10, v15) with m[σ8], m[σ9]
      (local.set $v0 (i64.add (i64.add (local.get $v0) (local.get $v5))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=8 (local.get $r))))))
      (local.set $v15 (i64.rotr (i64.xor (local.get $v15) (local.get $v0)) (i64.const 32)))
      (local.set $v10 (i64.add (local.get $v10) (local.get $v15)))
      (local.set $v5 (i64.rotr (i64.xor (local.get $v5) (local.get $v10)) (i64.const 24)))
      (local.set $v0 (i64.add (i64.add (local.get $v0) (local.get $v5))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=9 (local.get $r))))))
      (local.set $v15 (i64.rotr (i64.xor (local.get $v15) (local.get $v0)) (i64.const 16)))
      (local.set $v10 (i64.add (local.get $v10) (local.get $v15)))
      (local.set $v5 (i64.rotr (i64.xor (local.get $v5) (local.get $v10)) (i64.const 63)))
      ;; G(v1, v6, v11, v12) with m[σ10], m[σ11]
      (local.set $v1 (i64.add (i64.add (local.get $v1) (local.get $v6))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=10 (local.get $r))))))
      (local.set $v12 (i64.rotr (i64.xor (local.get $v12) (local.get $v1)) (i64.const 32)))
      (local.set $v11 (i64.add (local.get $v11) (local.get $v12)))
      (local.set $v6 (i64.rotr (i64.xor (local.get $v6) (local.get $v11)) (i64.const 24)))
      (local.set $v1 (i64.add (i64.add (local.get $v1) (local.get $v6))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=11 (local.get $r))))))
      (local.set $v12 (i64.rotr (i64.xor (local.get $v12) (local.get $v1)) (i64.const 16)))
      (local.set $v11 (i64.add (local.get $v11) (local.get $v12)))
      (local.set $v6 (i64.rotr (i64.xor (local.get $v6) (local.get $v11)) (i64.const 63)))
      ;; G(v2, v7, v8, v13) with m[σ12], m[σ13]
      (local.set $v2 (i64.add (i64.add (local.get $v2) (local.get $v7))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=12 (local.get $r))))))
      (local.set $v13 (i64.rotr (i64.xor (local.get $v13) (local.get $v2)) (i64.const 32)))
      (local.set $v8 (i64.add (local.get $v8) (local.get $v13)))
      (local.set $v7 (i64.rotr (i64.xor (local.get $v7) (local.get $v8)) (i64.const 24)))
      (local.set $v2 (i64.add (i64.add (local.get $v2) (local.get $v7))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=13 (local.get $r))))))
      (local.set $v13 (i64.rotr (i64.xor (local.get $v13) (local.get $v2)) (i64.const 16)))
      (local.set $v8 (i64.add (local.get $v8) (local.get $v13)))
      (local.set $v7 (i64.rotr (i64.xor (local.get $v7) (local.get $v8)) (i64.const 63)))
      ;; G(v3, v4, v9, v14) with m[σ14], m[σ15]
      (local.set $v3 (i64.add (i64.add (local.get $v3) (local.get $v4))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=14 (local.get $r))))))
      (local.set $v14 (i64.rotr (i64.xor (local.get $v14) (local.get $v3)) (i64.const 32)))
      (local.set $v9 (i64.add (local.get $v9) (local.get $v14)))
      (local.set $v4 (i64.rotr (i64.xor (local.get $v4) (local.get $v9)) (i64.const 24)))
      (local.set $v3 (i64.add (i64.add (local.get $v3) (local.get $v4))
                              (i64.load (i32.add (local.get $m) (i32.load8_u offset=15 (local.get $r))))))
      (local.set $v14 (i64.rotr (i64.xor (local.get $v14) (local.get $v3)) (i64.const 16)))
      (local.set $v9 (i64.add (local.get $v9) (local.get $v14)))
      (local.set $v4 (i64.rotr (i64.xor (local.get $v4) (local.get $v9)) (i64.const 63)))
      (br_if $round (i32.lt_u (local.tee $r (i32.add (local.get $r) (i32.const 16))) (i32.const 0x200))))
    ;; h[i] ^= v[i] ^ v[i + 8]
    (i64.store offset=0 (local.get $s)
      (i64.xor (i64.load offset=0 (local.get $s)) (i64.xor (local.get $v0) (local.get $v8))))
    (i64.store offset=8 (local.get $s)
      (i64.xor (i64.load offset=8 (local.get $s)) (i64.xor (local.get $v1) (local.get $v9))))
    (i64.store offset=16 (local.get $s)
      (i64.xor (i64.load offset=16 (local.get $s)) (i64.xor (local.get $v2) (local.get $v10))))
    (i64.store offset=24 (local.get $s)
      (i64.xor (i64.load offset=24 (local.get $s)) (i64.xor (local.get $v3) (local.get $v11))))
    (i64.store offset=32 (local.get $s)
      (i64.xor (i64.load offset=32 (local.get $s)) (i64.xor (local.get $v4) (local.get $v12))))
    (i64.store offset=40 (local.get $s)
      (i64.xor (i64.load offset=40 (local.get $s)) (i64.xor (local.get $v5) (local.get $v13))))
    (i64.store offset=48 (local.get $s)
      (i64.xor (i64.load offset=48 (local.get $s)) (i64.xor (local.get $v6) (local.get $v14))))
    (i64.store offset=56 (local.get $s)
      (i64.xor (i64.load offset=56 (local.get $s)) (i64.xor (local.get $v7) (local.get $v15)))))
)
