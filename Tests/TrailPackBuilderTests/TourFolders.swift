import Foundation

/// Small tour folders written by the builder's tests: tour.json, and each stop's folder with its
/// waypoint.json listing the files the test put there (the test makes the folders).
enum TourFolders {
    /// `root/tour.json` of a tour `id` named `name`, and `root/waypoints/`.
    static func start(_ root: String, id: String, name: String, description: String) throws {
        try FileManager.default.createDirectory(atPath: root + "/waypoints", withIntermediateDirectories: true)
        try
            #"{"id":"\#(id)","version":"1","name":"\#(name)","park":"P","site":{"id":"s","name":"S"},"mapName":"m","description":"\#(description)"}"#
            .write(toFile: root + "/tour.json", atomically: true, encoding: .utf8)
    }

    /// The stop folder `folder`'s waypoint.json, naming it `name`, at longitude -122.`east`,
    /// and listing `assets`.
    static func stop(_ folder: String, name: String, east: Int, assets: [String]) throws {
        let listed = assets.map { #""\#($0)""# }.joined(separator: ",")
        try
            #"{"name":"\#(name)","coordinate":{"latitude":44.4,"longitude":-122.\#(east)},"description":"A stop.","assets":[\#(listed)]}"#
            .write(toFile: folder + "/waypoint.json", atomically: true, encoding: .utf8)
    }
}
