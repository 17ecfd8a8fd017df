package metric

import (
	"math"
	"strconv"
)

// MultiBLEU returns the line Moses' multi-bleu.perl prints for corpus
// statistics s, without the newline:
//
//	BLEU = 23.17, 53.8/29.6/17.6/10.3 (BP=1.000, ratio=1.074, hyp_len=1989, ref_len=1852)
//
// with the script's arithmetic and formatting: an order without n-grams has
// precision 0, any zero precision makes BLEU 0, the lengths are printed
// truncated to integers, and a reference length of 0 gives the script's fixed
// line "BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)". (The script
// dies dividing by zero when the hypotheses are empty but the references are
// not; MultiBLEU then prints BLEU 0.00 with BP=0.000.) Orders other than 4
// print that many precisions.
func MultiBLEU(s Stats) string {
	var buf []byte
	if BLEUStats(s).RefLen() == 0 {
		buf = append(buf, "BLEU = 0, 0"...)
		for n := 1; n < BLEUStats(s).Order(); n++ {
			buf = append(buf, "/0"...)
		}
		return string(append(buf, " (BP=0, ratio=0, hyp_len=0, ref_len=0)"...))
	}
	c, r := BLEUStats(s).Total(0), BLEUStats(s).RefLen()
	bp := 1.0
	if c < r {
		bp = 0
		if c > 0 {
			bp = math.Exp(1 - r/c)
		}
	}
	var p [MaxOrder]float64
	var logSum float64
	for n := 0; n < BLEUStats(s).Order(); n++ {
		if BLEUStats(s).Total(n) != 0 {
			p[n] = BLEUStats(s).Match(n) / BLEUStats(s).Total(n)
		}
		if p[n] == 0 {
			logSum += -9999999999 // the script's my_log(0)
		} else {
			logSum += math.Log(p[n])
		}
	}
	bleu := 0.0
	if BLEUStats(s).Order() > 0 {
		bleu = bp * math.Exp(logSum/float64(BLEUStats(s).Order()))
	}
	buf = append(buf, "BLEU = "...)
	buf = strconv.AppendFloat(buf, 100*bleu, 'f', 2, 64)
	buf = append(buf, ", "...)
	for n := 0; n < BLEUStats(s).Order(); n++ {
		if n > 0 {
			buf = append(buf, '/')
		}
		buf = strconv.AppendFloat(buf, 100*p[n], 'f', 1, 64)
	}
	buf = append(buf, " (BP="...)
	buf = strconv.AppendFloat(buf, bp, 'f', 3, 64)
	buf = append(buf, ", ratio="...)
	buf = strconv.AppendFloat(buf, c/r, 'f', 3, 64)
	buf = append(buf, ", hyp_len="...)
	buf = strconv.AppendInt(buf, int64(c), 10)
	buf = append(buf, ", ref_len="...)
	buf = strconv.AppendInt(buf, int64(r), 10)
	return string(append(buf, ')'))
}
