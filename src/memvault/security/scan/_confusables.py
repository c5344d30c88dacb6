"""Confusable characters and the ASCII character each one imitates (generated).

Built from the Unicode TR39 confusables data as packaged by confusable-homoglyphs 3.3.1
(``confusables.json``): every non-ASCII character outside the CJK, Hangul, Arabic, Hebrew,
Devanagari, Thai and Khmer blocks whose prototype is one printable ASCII character, minus
those NFKC already folds. Capital-I look-alikes map to ``i`` rather than TR39's ``l`` so that
case-insensitive English rules still read them. Regenerate with
``python -m memvault.security.scan._build_confusables PATH/confusables.json``.
"""

from __future__ import annotations

# code point -> ASCII prototype, packed as (hex code point)(character), space separated
_PACKED = (
    "b4' b8, d7x 131i 17ff 184b 18dg 196i 1a6R 1a72 1b73 1bc5 1bds 1c0l 1c3! 21c3 "
    "2228 2238 241? 251a 261g 263y 269i 26ai 26fw 28bu 28fy 294? 2b9' 2bb' 2bc' 2bd' "
    "2be' 2c2< 2c3> 2c4^ 2c6^ 2c8' 2ca' 2cb' 2d0: 2d7- 2dbi 2dc~ 2f4' 2f8: 374' 37ai "
    "37fJ 384' 391A 392B 395E 396Z 397H 399i 39aK 39cM 39dN 39fO 3a1P 3a4T 3a5Y 3a7X "
    "3b1a 3b3y 3b9i 3bdv 3bfo 3c1p 3c3o 3c5u 3d2Y 3dcF 3e82 3f1p 3f2c 3f3j 3f9C 3faM "
    "405S 406i 408J 410A 412B 415E 4173 41aK 41cM 41dH 41eO 420P 421C 422T 423Y 425X "
    "42cb 430a 4316 433r 435e 43eo 440p 441c 443y 445x 455s 456i 458j 461w 474V 475v "
    "4aeY 4afy 4bbh 4bde 4c0l 4cfi 4e03 501d 50cG 51bq 51cW 51dw 54dU 54fS 555O 55a' "
    "55d' 561w 563q 566q 570h 578n 57cn 57du 581g 584f 585o 589: 6f0. 6f1l 6f5o 6f7V "
    "9e6O 9ea8 9ed9 a66o a679 a6a8 a83: ae6o b038 b20O b66O b689 be6o c02o c66o c82o "
    "ce6o d02o d20o d66o d6d9 d82o ed0o 101do 1040o 10e7y 10ffo 1200U 12d0O 13a0D "
    "13a1R 13a2T 13a5i 13a9Y 13aaA 13abJ 13acE 13ae? 13b3W 13b7M 13bbH 13bdY 13c0G "
    "13c2h 13c3Z 13ce4 13cfb 13d2R 13d4W 13d5S 13d9V 13daS 13deL 13dfC 13e2P 13e6K "
    "13e7d 13ee6 13f3G 13f4B 1400= 142fV 1433> 1438< 144a' 144cU 146dP 146fd 1472b "
    "148dJ 14aaL 14bf2 1541x 157cH 157dx 1587R 15afb 15b4F 15c5A 15deD 15eaD 15f0M "
    "15f7B 166dX 166ex 16b2< 16b7X 16c1i 16cc' 16d5K 16d6M 16ec: 16ed+ 1735/ 1803: "
    "1809: 1d04c 1d0fo 1d11o 1d1cu 1d20v 1d21w 1d22z 1d26r 1d83g 1d8cy 1e9df 1effy "
    "1fbd' 1fbei 1fbf' 1fc0~ 1fef' 1ffd' 1ffe' 2010- 2011- 2012- 2013- 2018' 2019' "
    "201a, 201b' 2032' 2035' 2039< 203a> 2041/ 2043- 2044/ 204e* 2053~ 205a: 2110i "
    "2111i 212ee 213dy 2160l 2212- 2215/ 2216\\ 2217* 2223l 2228v 222aU 2236: 223c~ "
    "22a4T 22c1v 22c3U 22ffE 2373i 2374p 237aa 23fdl 2571/ 2573X 2768( 2769) 276e< "
    "276f> 2772( 2773) 2774{ 2775} 2795+ 2796- 27cb/ 27cd\\ 27d9T 292bx 292cx 29f5\\ "
    "29f8/ 29f9\\ 2a2fx 2c85r 2c8eH 2c92i 2c94K 2c98M 2c9aN 2c9eO 2c9fo 2ca2P 2ca3p "
    "2ca4C 2ca5c 2ca6T 2ca8Y 2cacX 2cba- 2cc6/ 2cca9 2ccc3 2cd0L 2cd26 2d38V 2d39E "
    "2d4fl 2d51! 2d54O 2d55Q 2d5dX 2e40= 3007O 3014( 3015) 3033/ a4d0B a4d1P a4d2d "
    "a4d3D a4d4T a4d6G a4d7K a4d9J a4daC a4dcZ a4ddF a4dfM a4e0N a4e1L a4e2S a4e3R "
    "a4e6V a4e7H a4eaW a4ebX a4ecY a4eeA a4f0E a4f2i a4f3O a4f4U a4f8. a4f9, a4fd: "
    "a4ff= a60e. a6442 a647i a6dfV a6eb? a6ef2 a731s a75a2 a76a3 a76e9 a778& a789: "
    "a78c' a798F a799f a79fu a7ab3 a7b2J a7b3X a7b4B ab32e ab35f ab3do ab47r ab48r "
    "ab4eu ab52u ab5ay ab75i ab81r ab83w ab93z aba9v abaas abafc fd3e( fd3f) fe30: "
    "fe58- ff29i ff3b( ff3d) ff40' ffe8l 10282B 10286E 10287F 1028al 10290X 10292O "
    "10295P 10296S 10297T 1029b+ 102a0A 102a1B 102a2C 102a5F 102abO 102b0M 102b1T "
    "102b2Y 102b4X 102cfH 102f5Z 10301B 10302C 10309i 10311M 10315T 10317X 1031a8 "
    "1031f* 10320l 10322X 10404O 10415C 1041bL 10420S 1042co 1043dc 10448s 104b4R "
    "104c2O 104ceU 104d27 104eao 104f6u 10513N 10516O 10518K 1051cC 1051dV 10525F "
    "10526L 10527X 114d0O 11706v 1170aw 1170ew 1170fw 118a0V 118a2F 118a3L 118a4Y "
    "118a6E 118a9Z 118ac9 118aeE 118af4 118b2L 118b5O 118b8U 118bb5 118bcT 118c0v "
    "118c1s 118c2F 118c3i 118c4z 118c67 118c8o 118ca3 118cc9 118d56 118d69 118d7o "
    "118d8u 118dcy 118e0O 118e5Z 118e6W 118e9C 118ecX 118efW 118f2C 16f08V 16f0aT "
    "16f16L 16f28l 16f35R 16f3aS 16f3b3 16f3f> 16f40A 16f42U 16f43Y 16f51' 16f52' "
    "1d114{ 1d16d. 1d2063 1d20dV 1d20f\\ 1d2127 1d213F 1d216R 1d22aL 1d236< 1d237> "
    "1d23a/ 1d23b\\ 1d408i 1d43ci 1d470i 1d4d8i 1d540i 1d574i 1d5a8i 1d5dci 1d610i "
    "1d644i 1d678i 1d6a4i 1d6a8A 1d6a9B 1d6acE 1d6adZ 1d6aeH 1d6b0i 1d6b1K 1d6b3M "
    "1d6b4N 1d6b6O 1d6b8P 1d6bbT 1d6bcY 1d6beX 1d6c2a 1d6c4y 1d6cai 1d6cev 1d6d0o "
    "1d6d2p 1d6d4o 1d6d6u 1d6e0p 1d6e2A 1d6e3B 1d6e6E 1d6e7Z 1d6e8H 1d6eai 1d6ebK "
    "1d6edM 1d6eeN 1d6f0O 1d6f2P 1d6f5T 1d6f6Y 1d6f8X 1d6fca 1d6fey 1d704i 1d708v "
    "1d70ao 1d70cp 1d70eo 1d710u 1d71ap 1d71cA 1d71dB 1d720E 1d721Z 1d722H 1d724i "
    "1d725K 1d727M 1d728N 1d72aO 1d72cP 1d72fT 1d730Y 1d732X 1d736a 1d738y 1d73ei "
    "1d742v 1d744o 1d746p 1d748o 1d74au 1d754p 1d756A 1d757B 1d75aE 1d75bZ 1d75cH "
    "1d75ei 1d75fK 1d761M 1d762N 1d764O 1d766P 1d769T 1d76aY 1d76cX 1d770a 1d772y "
    "1d778i 1d77cv 1d77eo 1d780p 1d782o 1d784u 1d78ep 1d790A 1d791B 1d794E 1d795Z "
    "1d796H 1d798i 1d799K 1d79bM 1d79cN 1d79eO 1d7a0P 1d7a3T 1d7a4Y 1d7a6X 1d7aaa "
    "1d7acy 1d7b2i 1d7b6v 1d7b8o 1d7bap 1d7bco 1d7beu 1d7c8p 1d7caF 1d7ceO 1d7cfl "
    "1d7d8O 1d7d9l 1d7e2O 1d7e3l 1d7ecO 1d7edl 1d7f6O 1d7f7l 1f74cC 1f768T 1fbf0O "
    "1fbf1l "
)


def table() -> dict[int, str]:
    """The mapping as a ``str.translate`` table."""
    out: dict[int, str] = {}
    for item in _PACKED.split():
        out[int(item[:-1], 16)] = item[-1]
    return out
