//! Piecewise-linear interpolation of a curve given at increasing points.

/// The value at `x` of the piecewise-linear curve through (xs[i], ys[i]) (xs
/// increasing), constant beyond its ends: ICE curves at a row's own value, isotonic
/// calibration maps.
pub fn interpolate(xs: &[f64], ys: &[f64], x: f64) -> f64 {
    let last = xs.len() - 1;
    if x <= xs[0] {
        return ys[0];
    }
    if x >= xs[last] {
        return ys[last];
    }
    let j = xs.partition_point(|&v| v <= x);
    let t = (x - xs[j - 1]) / (xs[j] - xs[j - 1]);
    ys[j - 1] + t * (ys[j] - ys[j - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_inside_and_clamps_outside() {
        let (xs, ys) = ([0.0, 1.0, 3.0], [1.0, 3.0, 2.0]);
        assert_eq!(interpolate(&xs, &ys, -1.0), 1.0);
        assert_eq!(interpolate(&xs, &ys, 0.5), 2.0);
        assert_eq!(interpolate(&xs, &ys, 2.0), 2.5);
        assert_eq!(interpolate(&xs, &ys, 9.0), 2.0);
    }
}
