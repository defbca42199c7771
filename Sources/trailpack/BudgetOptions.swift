import ArgumentParser
import TrailPackBuilder

/// The phones' budget, for `validate` and `build`: above it they warn, with the figure.
struct BudgetOptions: ParsableArguments {
    @Option(name: .customLong("asset-budget-mb"), help: "Warn about a file larger than this many MiB.")
    var assetMiB: Int64 = PhoneBudget.default.assetBytes >> 20

    @Option(name: .customLong("package-budget-mb"), help: "Warn when all files add up to more MiB than this.")
    var packageMiB: Int64 = PhoneBudget.default.packageBytes >> 20

    func validate() throws {
        guard (1...(1 << 30)).contains(assetMiB), (1...(1 << 30)).contains(packageMiB) else {
            throw ValidationError("a budget is a whole number of MiB from 1 up, such as --asset-budget-mb 100")
        }
    }

    var budget: PhoneBudget { PhoneBudget(assetBytes: assetMiB << 20, packageBytes: packageMiB << 20) }
}
