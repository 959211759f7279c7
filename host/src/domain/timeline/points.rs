//! A timeline's `[ms, cumulative bytes]` points as the report holds them in memory:
//! deltas from the previous point, zigzag varints (times in the record's 10 µs ticks),
//! about 5 bytes a point instead of 16 (a report of a big run holds every sample's;
//! BENCHMARKS.md, "Timeline"). Written and read as the plain JSON array of pairs.

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Default, PartialEq, Eq)]
pub struct Points {
    encoded: Box<[u8]>,
    len: u32,
}

fn push_varint(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    while z >= 0x80 {
        out.push(z as u8 | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

fn read_varint(bytes: &[u8], at: &mut usize) -> i64 {
    let (mut z, mut shift) = (0u64, 0);
    loop {
        let b = bytes[*at];
        *at += 1;
        z |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return (z >> 1) as i64 ^ -((z & 1) as i64);
        }
        shift += 7;
    }
}

/// Milliseconds to the record's 10 µs ticks, and back (`super::ms` rounds to them).
fn ticks(ms: f64) -> i64 {
    (ms * 100.0).round() as i64
}

fn millis(ticks: i64) -> f64 {
    ticks as f64 / 100.0
}

impl FromIterator<(f64, u64)> for Points {
    fn from_iter<I: IntoIterator<Item = (f64, u64)>>(points: I) -> Points {
        let (mut out, mut len, mut prev) = (Vec::new(), 0u32, (0i64, 0i64));
        for (ms, bytes) in points {
            let now = (ticks(ms), bytes as i64);
            push_varint(&mut out, now.0 - prev.0);
            push_varint(&mut out, now.1 - prev.1);
            prev = now;
            len += 1;
        }
        Points {
            encoded: out.into_boxed_slice(),
            len,
        }
    }
}

impl Points {
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = (f64, u64)> + '_ {
        let (mut at, mut prev) = (0usize, (0i64, 0i64));
        (0..self.len).map(move |_| {
            prev.0 += read_varint(&self.encoded, &mut at);
            prev.1 += read_varint(&self.encoded, &mut at);
            (millis(prev.0), prev.1 as u64)
        })
    }

    pub fn last(&self) -> Option<(f64, u64)> {
        self.iter().last()
    }

    pub fn to_vec(&self) -> Vec<(f64, u64)> {
        self.iter().collect()
    }
}

impl std::fmt::Debug for Points {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Points {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for p in self.iter() {
            seq.serialize_element(&p)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Points {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Points, D::Error> {
        struct Pairs;
        impl<'de> Visitor<'de> for Pairs {
            type Value = Points;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of [ms, bytes] pairs")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Points, A::Error> {
                let mut all = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(p) = seq.next_element::<(f64, u64)>()? {
                    all.push(p);
                }
                Ok(all.into_iter().collect())
            }
        }
        d.deserialize_seq(Pairs)
    }
}

impl schemars::JsonSchema for Points {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Points".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<(f64, u64)>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_read_back_as_written_whatever_their_order() {
        let points = vec![
            (0.01, 65536),
            (0.27, 131072),
            (4123.45, 17_179_869_184),
            (2.5, 3), // out of order: kept as given
            (0.0, 0),
        ];
        let p: Points = points.iter().copied().collect();
        assert_eq!(p.to_vec(), points);
        assert_eq!(p.last(), Some((0.0, 0)));
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(
            json,
            "[[0.01,65536],[0.27,131072],[4123.45,17179869184],[2.5,3],[0.0,0]]"
        );
        assert_eq!(serde_json::from_str::<Points>(&json).unwrap(), p);
        // A 64 KiB step 0.1 ms after the last is 4 bytes.
        let steady: Points = (1..=100u64).map(|i| (i as f64 * 0.1, i * 65536)).collect();
        assert!(steady.encoded.len() <= 4 * 100, "{}", steady.encoded.len());
    }
}
