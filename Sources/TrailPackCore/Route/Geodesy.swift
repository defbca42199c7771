import Foundation

/// Distances on the WGS 84 ellipsoid, for route lengths (`docs/FORMAT.md` §3.3).
///
/// Vincenty's inverse formula: accurate to a fraction of a millimetre between any two points a
/// route's segment joins. For nearly antipodal points, where it does not converge (never two
/// consecutive points of a real track), the great circle on the mean sphere stands in.
public enum Geodesy {
    /// The semi-major axis of WGS 84, in metres.
    public static let equatorialRadius = 6_378_137.0
    /// The flattening of WGS 84.
    public static let flattening = 1 / 298.257_223_563
    /// The mean radius of the Earth (IUGG), in metres: the plane in which stops are projected onto
    /// the route (`docs/FORMAT.md` §3.3).
    public static let meanRadius = 6_371_008.8

    /// The geodesic distance in metres between two positions given in degrees.
    public static func distance(
        latitude lat1: Double, longitude lon1: Double, latitude lat2: Double, longitude lon2: Double
    ) -> Double {
        let a = equatorialRadius, f = flattening, b = a * (1 - f)
        let rad = Double.pi / 180
        let deltaLongitude = wrapped(lon2 - lon1) * rad
        let u1 = atan((1 - f) * tan(lat1 * rad)), u2 = atan((1 - f) * tan(lat2 * rad))
        let (sinU1, cosU1, sinU2, cosU2) = (sin(u1), cos(u1), sin(u2), cos(u2))
        var lambda = deltaLongitude
        for _ in 0..<200 {
            let sinLambda = sin(lambda), cosLambda = cos(lambda)
            let x = cosU2 * sinLambda, y = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            let sinSigma = (x * x + y * y).squareRoot()
            if sinSigma == 0 { return 0 }
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            let cos2Alpha = 1 - sinAlpha * sinAlpha
            let cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0
            let c = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda =
                deltaLongitude + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-12 {
                let uu = cos2Alpha * (a * a - b * b) / (b * b)
                let bigA = 1 + uu / 16384 * (4096 + uu * (-768 + uu * (320 - 175 * uu)))
                let bigB = uu / 1024 * (256 + uu * (-128 + uu * (74 - 47 * uu)))
                let deltaSigma =
                    bigB * sinSigma
                    * (cos2SigmaM + bigB / 4
                        * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - bigB / 6 * cos2SigmaM
                            * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
                return b * bigA * (sigma - deltaSigma)
            }
        }
        return greatCircle(latitude: lat1, longitude: lon1, latitude: lat2, longitude: lon2)
    }

    /// The great-circle distance on the sphere of the mean radius (haversine).
    public static func greatCircle(
        latitude lat1: Double, longitude lon1: Double, latitude lat2: Double, longitude lon2: Double
    ) -> Double {
        let rad = Double.pi / 180
        let dLat = (lat2 - lat1) * rad, dLon = wrapped(lon2 - lon1) * rad
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * rad) * cos(lat2 * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * meanRadius * asin(min(1, h.squareRoot()))
    }

    /// A difference of longitudes brought into [-180, 180].
    public static func wrapped(_ degrees: Double) -> Double {
        var d = degrees
        while d > 180 { d -= 360 }
        while d < -180 { d += 360 }
        return d
    }
}
