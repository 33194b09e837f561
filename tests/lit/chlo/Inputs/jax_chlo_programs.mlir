// CHLO programs emitted by jax.jit(f).lower(...).as_text() (jax 0.10.2), one per split-input chunk.
// jax.scipy.special.betaln
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.minimum %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.maximum %arg0, %arg1 : tensor<4xf32>
    %2 = chlo.lgamma %0 : tensor<4xf32> -> tensor<4xf32>
    %3 = chlo.lgamma %1 : tensor<4xf32> -> tensor<4xf32>
    %4 = stablehlo.add %0, %1 : tensor<4xf32>
    %5 = chlo.lgamma %4 : tensor<4xf32> -> tensor<4xf32>
    %6 = stablehlo.subtract %3, %5 : tensor<4xf32>
    %7 = stablehlo.add %2, %6 : tensor<4xf32>
    %8 = chlo.lgamma %0 : tensor<4xf32> -> tensor<4xf32>
    %9 = stablehlo.divide %0, %1 : tensor<4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.add %10, %9 : tensor<4xf32>
    %12 = stablehlo.divide %9, %11 : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %14 = stablehlo.add %13, %9 : tensor<4xf32>
    %15 = stablehlo.divide %9, %14 : tensor<4xf32>
    %cst_1 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %17 = stablehlo.subtract %0, %16 : tensor<4xf32>
    %18 = stablehlo.add %1, %17 : tensor<4xf32>
    %19 = stablehlo.multiply %15, %15 : tensor<4xf32>
    %20 = stablehlo.add %15, %19 : tensor<4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %22 = stablehlo.add %21, %20 : tensor<4xf32>
    %23 = stablehlo.multiply %19, %22 : tensor<4xf32>
    %24 = stablehlo.add %15, %23 : tensor<4xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %26 = stablehlo.add %25, %24 : tensor<4xf32>
    %27 = stablehlo.multiply %19, %26 : tensor<4xf32>
    %28 = stablehlo.add %15, %27 : tensor<4xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %30 = stablehlo.add %29, %28 : tensor<4xf32>
    %31 = stablehlo.multiply %19, %30 : tensor<4xf32>
    %32 = stablehlo.add %15, %31 : tensor<4xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %34 = stablehlo.add %33, %32 : tensor<4xf32>
    %35 = stablehlo.multiply %19, %34 : tensor<4xf32>
    %36 = stablehlo.add %15, %35 : tensor<4xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %38 = stablehlo.add %37, %36 : tensor<4xf32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %40 = stablehlo.divide %39, %1 : tensor<4xf32>
    %41 = stablehlo.multiply %40, %40 : tensor<4xf32>
    %cst_8 = stablehlo.constant dense<-0.00165322958> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %43 = stablehlo.multiply %42, %38 : tensor<4xf32>
    %44 = stablehlo.multiply %43, %41 : tensor<4xf32>
    %cst_9 = stablehlo.constant dense<8.373080e-04> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %46 = stablehlo.multiply %45, %34 : tensor<4xf32>
    %47 = stablehlo.add %44, %46 : tensor<4xf32>
    %48 = stablehlo.multiply %47, %41 : tensor<4xf32>
    %cst_10 = stablehlo.constant dense<-5.95202902E-4> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %50 = stablehlo.multiply %49, %30 : tensor<4xf32>
    %51 = stablehlo.add %48, %50 : tensor<4xf32>
    %52 = stablehlo.multiply %51, %41 : tensor<4xf32>
    %cst_11 = stablehlo.constant dense<7.93650688E-4> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %54 = stablehlo.multiply %53, %26 : tensor<4xf32>
    %55 = stablehlo.add %52, %54 : tensor<4xf32>
    %56 = stablehlo.multiply %55, %41 : tensor<4xf32>
    %cst_12 = stablehlo.constant dense<-0.00277777785> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %58 = stablehlo.multiply %57, %22 : tensor<4xf32>
    %59 = stablehlo.add %56, %58 : tensor<4xf32>
    %60 = stablehlo.multiply %59, %41 : tensor<4xf32>
    %cst_13 = stablehlo.constant dense<0.0833333358> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %62 = stablehlo.add %60, %61 : tensor<4xf32>
    %63 = stablehlo.divide %12, %1 : tensor<4xf32>
    %64 = stablehlo.multiply %62, %63 : tensor<4xf32>
    %65 = stablehlo.divide %0, %1 : tensor<4xf32>
    %66 = stablehlo.log_plus_one %65 : tensor<4xf32>
    %67 = stablehlo.multiply %18, %66 : tensor<4xf32>
    %68 = stablehlo.log %1 : tensor<4xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %70 = stablehlo.subtract %68, %69 : tensor<4xf32>
    %71 = stablehlo.multiply %0, %70 : tensor<4xf32>
    %72 = stablehlo.compare LE, %67, %71, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %73 = stablehlo.subtract %64, %71 : tensor<4xf32>
    %74 = stablehlo.subtract %73, %67 : tensor<4xf32>
    %75 = stablehlo.subtract %64, %67 : tensor<4xf32>
    %76 = stablehlo.subtract %75, %71 : tensor<4xf32>
    %77 = call @_where(%72, %74, %76) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %78 = stablehlo.add %8, %77 : tensor<4xf32>
    %cst_15 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %80 = stablehlo.compare LT, %1, %79, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %81 = call @_where(%80, %7, %78) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %81 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.comb
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.compare LE, %arg1, %arg0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.compare GE, %arg0, %1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %3 = stablehlo.and %0, %2 : tensor<4xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.compare GE, %arg1, %4, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %6 = stablehlo.and %3, %5 : tensor<4xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %7 = call @_where(%6, %arg0, %cst_1) : (tensor<4xi1>, tensor<4xf32>, tensor<f64>) -> tensor<4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %8 = call @_where(%6, %arg1, %cst_2) : (tensor<4xi1>, tensor<4xf32>, tensor<f64>) -> tensor<4xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.add %7, %9 : tensor<4xf32>
    %11 = chlo.lgamma %10 : tensor<4xf32> -> tensor<4xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.add %8, %12 : tensor<4xf32>
    %14 = chlo.lgamma %13 : tensor<4xf32> -> tensor<4xf32>
    %15 = stablehlo.subtract %11, %14 : tensor<4xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %17 = stablehlo.add %7, %16 : tensor<4xf32>
    %18 = stablehlo.subtract %17, %8 : tensor<4xf32>
    %19 = chlo.lgamma %18 : tensor<4xf32> -> tensor<4xf32>
    %20 = stablehlo.subtract %15, %19 : tensor<4xf32>
    %21 = stablehlo.exponential %20 : tensor<4xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %22 = call @_where(%6, %21, %cst_6) : (tensor<4xi1>, tensor<4xf32>, tensor<f64>) -> tensor<4xf32>
    return %22 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xf32>, %arg2: tensor<f64>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg2 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<4xi1>, tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.digamma
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.digamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.erf
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.erf %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.erfc
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.erfc %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.erfcx
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<[6.562500e+00, -1.875000e+00, 7.500000e-01, -5.000000e-01, 1.000000e+00]> : tensor<5xf32>
    %cst_0 = stablehlo.constant dense<9.419280e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.select %1, %2, %arg0 : tensor<4xi1>, tensor<4xf32>
    %4 = chlo.square %3 : tensor<4xf32> -> tensor<4xf32>
    %5 = stablehlo.exponential %4 : tensor<4xf32>
    %6 = chlo.erfc %3 : tensor<4xf32> -> tensor<4xf32>
    %7 = stablehlo.multiply %5, %6 : tensor<4xf32>
    %8 = chlo.square %arg0 : tensor<4xf32> -> tensor<4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.divide %9, %8 : tensor<4xf32>
    %11 = call @polyval(%cst, %10) : (tensor<5xf32>, tensor<4xf32>) -> tensor<4xf32>
    %cst_3 = stablehlo.constant dense<1.7724539> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.multiply %arg0, %12 : tensor<4xf32>
    %14 = stablehlo.divide %11, %13 : tensor<4xf32>
    %15 = stablehlo.select %1, %14, %7 : tensor<4xi1>, tensor<4xf32>
    return %15 : tensor<4xf32>
  }
  func.func private @polyval(%arg0: tensor<5xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.slice %arg0 [0:0] : (tensor<5xf32>) -> tensor<0xf32>
    %2 = stablehlo.slice %arg0 [0:5] : (tensor<5xf32>) -> tensor<5xf32>
    %3 = stablehlo.slice %2 [0:1] : (tensor<5xf32>) -> tensor<1xf32>
    %4 = stablehlo.reshape %3 : (tensor<1xf32>) -> tensor<f32>
    %5 = call @closed_call(%arg1, %0, %4) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.slice %2 [1:2] : (tensor<5xf32>) -> tensor<1xf32>
    %7 = stablehlo.reshape %6 : (tensor<1xf32>) -> tensor<f32>
    %8 = call @closed_call(%arg1, %5, %7) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %9 = stablehlo.slice %2 [2:3] : (tensor<5xf32>) -> tensor<1xf32>
    %10 = stablehlo.reshape %9 : (tensor<1xf32>) -> tensor<f32>
    %11 = call @closed_call(%arg1, %8, %10) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.slice %2 [3:4] : (tensor<5xf32>) -> tensor<1xf32>
    %13 = stablehlo.reshape %12 : (tensor<1xf32>) -> tensor<f32>
    %14 = call @closed_call(%arg1, %11, %13) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %15 = stablehlo.slice %2 [4:5] : (tensor<5xf32>) -> tensor<1xf32>
    %16 = stablehlo.reshape %15 : (tensor<1xf32>) -> tensor<f32>
    %17 = call @closed_call(%arg1, %14, %16) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %17 : tensor<4xf32>
  }
  func.func private @closed_call(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<f32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %arg1, %arg0 : tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.add %0, %1 : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.erfinv
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.erf_inv %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.factorial
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.compare LT, %arg0, %0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.add %arg0, %2 : tensor<4xf32>
    %4 = chlo.lgamma %3 : tensor<4xf32> -> tensor<4xf32>
    %5 = stablehlo.exponential %4 : tensor<4xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %6 = call @_where(%1, %c, %5) : (tensor<4xi1>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
    return %6 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<i64>, %arg2: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.select %arg0, %1, %arg2 : tensor<4xi1>, tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.gamma
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = call @gammasgn(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = chlo.lgamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    %2 = stablehlo.exponential %1 : tensor<4xf32>
    %3 = stablehlo.multiply %0, %2 : tensor<4xf32>
    return %3 : tensor<4xf32>
  }
  func.func private @gammasgn(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.floor %arg0 : tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.compare LT, %arg0, %1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %3 = stablehlo.compare EQ, %arg0, %0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %4 = stablehlo.and %2, %3 : tensor<4xi1>
    %5 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %6 = stablehlo.or %4, %5 : tensor<4xi1>
    %c = stablehlo.constant dense<2> : tensor<i64>
    %7 = call @remainder(%0, %c) : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %9 = stablehlo.compare NE, %7, %8, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %10 = stablehlo.and %2, %9 : tensor<4xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.compare EQ, %arg0, %11, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %13 = call @signbit(%arg0) : (tensor<4xf32>) -> tensor<4xi1>
    %14 = stablehlo.and %12, %13 : tensor<4xi1>
    %15 = stablehlo.or %10, %14 : tensor<4xi1>
    %c_2 = stablehlo.constant dense<false> : tensor<i1>
    %16 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i1>) -> tensor<4xi1>
    %17 = stablehlo.broadcast_in_dim %16, dims = [1] : (tensor<4xi1>) -> tensor<1x4xi1>
    %18 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<4xi1>) -> tensor<1x4xi1>
    %19 = stablehlo.broadcast_in_dim %15, dims = [1] : (tensor<4xi1>) -> tensor<1x4xi1>
    %20 = stablehlo.concatenate %17, %18, %19, dim = 0 : (tensor<1x4xi1>, tensor<1x4xi1>, tensor<1x4xi1>) -> tensor<3x4xi1>
    %21 = call @argmax(%20) : (tensor<3x4xi1>) -> tensor<4xi64>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_5 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %c_6 = stablehlo.constant dense<1> : tensor<i64>
    %25 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %26 = stablehlo.compare LT, %21, %25, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %c_7 = stablehlo.constant dense<2> : tensor<i64>
    %27 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %28 = stablehlo.compare LT, %21, %27, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %29 = stablehlo.select %28, %23, %24 : tensor<4xi1>, tensor<4xf32>
    %30 = stablehlo.select %26, %22, %29 : tensor<4xi1>, tensor<4xf32>
    return %30 : tensor<4xf32>
  }
  func.func private @remainder(%arg0: tensor<4xf32>, %arg1: tensor<i64>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.remainder %arg0, %1 : tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %4 = stablehlo.compare NE, %2, %3, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.compare LT, %2, %5, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.compare LT, %0, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<i1>) -> tensor<4xi1>
    %9 = stablehlo.compare NE, %6, %8, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %10 = stablehlo.and %9, %4 : tensor<4xi1>
    %11 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.add %2, %11 : tensor<4xf32>
    %13 = stablehlo.select %10, %12, %2 : tensor<4xi1>, tensor<4xf32>
    return %13 : tensor<4xf32>
  }
  func.func private @signbit(%arg0: tensor<4xf32>) -> tensor<4xi1> {
    %0 = stablehlo.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
    %c = stablehlo.constant dense<31> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %2 = stablehlo.shift_right_arithmetic %0, %1 : tensor<4xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %4 = stablehlo.compare NE, %2, %3, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %5 = stablehlo.convert %4 : tensor<4xi1>
    return %5 : tensor<4xi1>
  }
  func.func private @argmax(%arg0: tensor<3x4xi1>) -> tensor<4xi64> {
    %0 = stablehlo.iota dim = 0 : tensor<3x4xi64>
    %c = stablehlo.constant dense<false> : tensor<i1>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %1:2 = stablehlo.reduce(%arg0 init: %c), (%0 init: %c_0) across dimensions = [0] : (tensor<3x4xi1>, tensor<3x4xi64>, tensor<i1>, tensor<i64>) -> (tensor<4xi1>, tensor<4xi64>)
     reducer(%arg1: tensor<i1>, %arg3: tensor<i1>) (%arg2: tensor<i64>, %arg4: tensor<i64>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<i1>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i64>
      stablehlo.return %9, %10 : tensor<i1>, tensor<i64>
    }
    return %1#1 : tensor<4xi64>
  }
}

// -----
// jax.scipy.special.gammaln
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.lgamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.i1
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.abs %arg0 : tensor<4xf32>
    %1 = stablehlo.exponential %0 : tensor<4xf32>
    %2 = chlo.bessel_i1e %arg0 : tensor<4xf32> -> tensor<4xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.i1e
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.bessel_i1e %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.log_ndtr
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %2 = stablehlo.negate %arg0 : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<-1.000000e+01> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %4 = stablehlo.maximum %arg0, %3 : tensor<4xf32>
    %5 = call @_where(%1, %2, %4) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %cst_1 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %7 = stablehlo.multiply %5, %6 : tensor<4xf32>
    %8 = stablehlo.abs %7 : tensor<4xf32>
    %cst_2 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.compare LT, %8, %9, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %11 = chlo.erf %7 : tensor<4xf32> -> tensor<4xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.add %12, %11 : tensor<4xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %15 = stablehlo.compare GT, %7, %14, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %16 = chlo.erfc %8 : tensor<4xf32> -> tensor<4xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %18 = stablehlo.subtract %17, %16 : tensor<4xf32>
    %19 = chlo.erfc %8 : tensor<4xf32> -> tensor<4xf32>
    %20 = stablehlo.select %15, %18, %19 : tensor<4xi1>, tensor<4xf32>
    %21 = stablehlo.select %10, %13, %20 : tensor<4xi1>, tensor<4xf32>
    %cst_6 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %23 = stablehlo.multiply %22, %21 : tensor<4xf32>
    %24 = stablehlo.negate %23 : tensor<4xf32>
    %cst_7 = stablehlo.constant dense<-1.000000e+01> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %26 = stablehlo.compare GT, %arg0, %25, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %27 = stablehlo.log %23 : tensor<4xf32>
    %cst_8 = stablehlo.constant dense<-1.000000e+01> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %29 = stablehlo.minimum %arg0, %28 : tensor<4xf32>
    %30 = chlo.square %29 : tensor<4xf32> -> tensor<4xf32>
    %cst_9 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %32 = stablehlo.multiply %31, %30 : tensor<4xf32>
    %33 = stablehlo.negate %29 : tensor<4xf32>
    %34 = stablehlo.log %33 : tensor<4xf32>
    %35 = stablehlo.subtract %32, %34 : tensor<4xf32>
    %cst_10 = stablehlo.constant dense<0.918938517> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %37 = stablehlo.subtract %35, %36 : tensor<4xf32>
    %38 = chlo.square %29 : tensor<4xf32> -> tensor<4xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %42 = stablehlo.divide %41, %38 : tensor<4xf32>
    %43 = stablehlo.add %40, %42 : tensor<4xf32>
    %44 = stablehlo.multiply %38, %38 : tensor<4xf32>
    %cst_14 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %46 = stablehlo.divide %45, %44 : tensor<4xf32>
    %47 = stablehlo.add %39, %46 : tensor<4xf32>
    %48 = stablehlo.multiply %44, %38 : tensor<4xf32>
    %cst_15 = stablehlo.constant dense<1.500000e+01> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %50 = stablehlo.divide %49, %48 : tensor<4xf32>
    %51 = stablehlo.add %43, %50 : tensor<4xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %53 = stablehlo.add %52, %47 : tensor<4xf32>
    %54 = stablehlo.subtract %53, %51 : tensor<4xf32>
    %55 = stablehlo.log %54 : tensor<4xf32>
    %56 = stablehlo.add %37, %55 : tensor<4xf32>
    %57 = call @_where(%26, %27, %56) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %58 = call @_where(%1, %24, %57) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %58 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.loggamma
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.lgamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.compare GT, %arg0, %1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %3 = call @_where(%2, %0, %cst_0) : (tensor<4xi1>, tensor<4xf32>, tensor<f64>) -> tensor<4xf32>
    return %3 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xf32>, %arg2: tensor<f64>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg2 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<4xi1>, tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.ndtr
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.707106769> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4xf32>
    %2 = stablehlo.abs %1 : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %4 = stablehlo.compare LT, %2, %3, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %5 = chlo.erf %1 : tensor<4xf32> -> tensor<4xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %7 = stablehlo.add %6, %5 : tensor<4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %9 = stablehlo.compare GT, %1, %8, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %10 = chlo.erfc %2 : tensor<4xf32> -> tensor<4xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.subtract %11, %10 : tensor<4xf32>
    %13 = chlo.erfc %2 : tensor<4xf32> -> tensor<4xf32>
    %14 = stablehlo.select %9, %12, %13 : tensor<4xi1>, tensor<4xf32>
    %15 = stablehlo.select %4, %7, %14 : tensor<4xi1>, tensor<4xf32>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %17 = stablehlo.multiply %16, %15 : tensor<4xf32>
    return %17 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.owens_t
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf64> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<[0.0035082039676451716, 0.031279042338030756, 0.085266826283219452, 0.16245071730812277, 0.25851196049125436, 0.36807553840697532, 0.48501092905604698, 0.60277514152618572, 0.71477884217753229, 0.81475510988760103, 0.89711029755948968, 0.95723808085944262, 0.99178832974629704]> : tensor<13xf64>
    %cst_0 = stablehlo.constant dense<[0.018831438115323503, 0.018567086243977651, 0.018042093461223385, 0.017263829606398752, 0.016243219975989858, 0.014994592034116705, 0.013535474469662087, 0.011886351605820165, 0.010070377242777432, 0.0081130545742299584, 0.0060419009528470237, 0.0038862217010742057, 0.0016793031084546091]> : tensor<13xf64>
    %0 = stablehlo.abs %arg0 : tensor<4xf32>
    %1 = stablehlo.abs %arg1 : tensor<4xf32>
    %cst_1 = stablehlo.constant dense<1.41421354> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.divide %0, %2 : tensor<4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.compare LE, %1, %4, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %7 = stablehlo.divide %6, %1 : tensor<4xf32>
    %8 = call @_where(%5, %1, %7) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.compare LE, %1, %9, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %11 = stablehlo.multiply %1, %0 : tensor<4xf32>
    %12 = call @_where(%10, %0, %11) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %13 = stablehlo.broadcast_in_dim %cst, dims = [1] : (tensor<13xf64>) -> tensor<1x13xf64>
    %14 = chlo.square %8 : tensor<4xf32> -> tensor<4xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %16 = stablehlo.convert %15 : (tensor<4x1xf32>) -> tensor<4x1xf64>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<4x1xf64>) -> tensor<4x13xf64>
    %18 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<1x13xf64>) -> tensor<4x13xf64>
    %19 = stablehlo.multiply %17, %18 : tensor<4x13xf64>
    %20 = chlo.square %12 : tensor<4xf32> -> tensor<4xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_5 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %23 = stablehlo.multiply %22, %21 : tensor<4x1xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %24 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f64>) -> tensor<4x13xf64>
    %25 = stablehlo.add %24, %19 : tensor<4x13xf64>
    %26 = stablehlo.convert %23 : (tensor<4x1xf32>) -> tensor<4x1xf64>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<4x1xf64>) -> tensor<4x13xf64>
    %28 = stablehlo.multiply %27, %25 : tensor<4x13xf64>
    %29 = stablehlo.exponential %28 : tensor<4x13xf64>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %30 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f64>) -> tensor<4x13xf64>
    %31 = stablehlo.add %30, %19 : tensor<4x13xf64>
    %32 = stablehlo.divide %29, %31 : tensor<4x13xf64>
    %33 = stablehlo.dot_general %32, %cst_0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x13xf64>, tensor<13xf64>) -> tensor<4xf64>
    %34 = stablehlo.convert %8 : (tensor<4xf32>) -> tensor<4xf64>
    %35 = stablehlo.multiply %34, %33 : tensor<4xf64>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %37 = stablehlo.compare EQ, %12, %36, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %38 = chlo.atan %8 : tensor<4xf32> -> tensor<4xf32>
    %cst_9 = stablehlo.constant dense<6.28318548> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %40 = stablehlo.divide %38, %39 : tensor<4xf32>
    %41 = call @_where_0(%37, %40, %35) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf64>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %43 = stablehlo.compare EQ, %8, %42, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %44 = stablehlo.negate %12 : tensor<4xf32>
    %cst_11 = stablehlo.constant dense<1.41421354> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %46 = stablehlo.divide %44, %45 : tensor<4xf32>
    %47 = chlo.erfc %46 : tensor<4xf32> -> tensor<4xf32>
    %cst_12 = stablehlo.constant dense<1.250000e-01> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %49 = stablehlo.multiply %48, %47 : tensor<4xf32>
    %cst_13 = stablehlo.constant dense<1.41421354> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %51 = stablehlo.divide %12, %50 : tensor<4xf32>
    %52 = chlo.erfc %51 : tensor<4xf32> -> tensor<4xf32>
    %53 = stablehlo.multiply %49, %52 : tensor<4xf32>
    %54 = call @_where_0(%43, %53, %41) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf64>
    %55 = chlo.erfc %3 : tensor<4xf32> -> tensor<4xf32>
    %56 = stablehlo.multiply %1, %3 : tensor<4xf32>
    %57 = chlo.erfc %56 : tensor<4xf32> -> tensor<4xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %59 = stablehlo.compare GT, %1, %58, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %60 = stablehlo.multiply %1, %0 : tensor<4xf32>
    %cst_15 = stablehlo.constant dense<6.700000e-01> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %62 = stablehlo.compare LE, %60, %61, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %63 = chlo.erf %3 : tensor<4xf32> -> tensor<4xf32>
    %cst_16 = stablehlo.constant dense<2.500000e-01> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %65 = stablehlo.multiply %64, %63 : tensor<4xf32>
    %66 = stablehlo.multiply %1, %3 : tensor<4xf32>
    %67 = chlo.erf %66 : tensor<4xf32> -> tensor<4xf32>
    %68 = stablehlo.multiply %65, %67 : tensor<4xf32>
    %cst_17 = stablehlo.constant dense<2.500000e-01> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %70 = stablehlo.subtract %69, %68 : tensor<4xf32>
    %71 = stablehlo.convert %70 : (tensor<4xf32>) -> tensor<4xf64>
    %72 = stablehlo.subtract %71, %54 : tensor<4xf64>
    %73 = stablehlo.add %55, %57 : tensor<4xf32>
    %74 = stablehlo.multiply %55, %57 : tensor<4xf32>
    %75 = stablehlo.subtract %73, %74 : tensor<4xf32>
    %cst_18 = stablehlo.constant dense<2.500000e-01> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %77 = stablehlo.multiply %76, %75 : tensor<4xf32>
    %78 = stablehlo.convert %77 : (tensor<4xf32>) -> tensor<4xf64>
    %79 = stablehlo.subtract %78, %54 : tensor<4xf64>
    %80 = call @_where_1(%62, %72, %79) : (tensor<4xi1>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
    %81 = call @_where_1(%59, %80, %54) : (tensor<4xi1>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
    %82 = stablehlo.sign %arg1 : tensor<4xf32>
    %83 = stablehlo.convert %82 : (tensor<4xf32>) -> tensor<4xf64>
    %84 = stablehlo.multiply %83, %81 : tensor<4xf64>
    %85 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %86 = stablehlo.compare NE, %0, %0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %87 = stablehlo.or %85, %86 : tensor<4xi1>
    %cst_19 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %88 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f64>) -> tensor<4xf64>
    %89 = call @_where_1(%87, %88, %84) : (tensor<4xi1>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
    return %89 : tensor<4xf64>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @_where_0(%arg0: tensor<4xi1>, %arg1: tensor<4xf32>, %arg2: tensor<4xf64>) -> tensor<4xf64> {
    %0 = stablehlo.convert %arg1 : (tensor<4xf32>) -> tensor<4xf64>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<4xi1>, tensor<4xf64>
    return %1 : tensor<4xf64>
  }
  func.func private @_where_1(%arg0: tensor<4xi1>, %arg1: tensor<4xf64>, %arg2: tensor<4xf64>) -> tensor<4xf64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xf64>
    return %0 : tensor<4xf64>
  }
}

// -----
// jax.scipy.special.poch
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.compare EQ, %arg1, %0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %2 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %3 = call @gammasgn(%2) : (tensor<4xf32>) -> tensor<4xf32>
    %4 = chlo.lgamma %2 : tensor<4xf32> -> tensor<4xf32>
    %5 = stablehlo.exponential %4 : tensor<4xf32>
    %6 = stablehlo.multiply %3, %5 : tensor<4xf32>
    %7 = call @gammasgn(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %8 = chlo.lgamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    %9 = stablehlo.exponential %8 : tensor<4xf32>
    %10 = stablehlo.multiply %7, %9 : tensor<4xf32>
    %11 = stablehlo.divide %6, %10 : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = call @_where(%1, %cst_0, %11) : (tensor<4xi1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
    return %12 : tensor<4xf32>
  }
  func.func private @gammasgn(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.floor %arg0 : tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.compare LT, %arg0, %1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %3 = stablehlo.compare EQ, %arg0, %0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %4 = stablehlo.and %2, %3 : tensor<4xi1>
    %5 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %6 = stablehlo.or %4, %5 : tensor<4xi1>
    %c = stablehlo.constant dense<2> : tensor<i64>
    %7 = call @remainder(%0, %c) : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %9 = stablehlo.compare NE, %7, %8, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %10 = stablehlo.and %2, %9 : tensor<4xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.compare EQ, %arg0, %11, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %13 = call @signbit(%arg0) : (tensor<4xf32>) -> tensor<4xi1>
    %14 = stablehlo.and %12, %13 : tensor<4xi1>
    %15 = stablehlo.or %10, %14 : tensor<4xi1>
    %c_2 = stablehlo.constant dense<false> : tensor<i1>
    %16 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i1>) -> tensor<4xi1>
    %17 = stablehlo.broadcast_in_dim %16, dims = [1] : (tensor<4xi1>) -> tensor<1x4xi1>
    %18 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<4xi1>) -> tensor<1x4xi1>
    %19 = stablehlo.broadcast_in_dim %15, dims = [1] : (tensor<4xi1>) -> tensor<1x4xi1>
    %20 = stablehlo.concatenate %17, %18, %19, dim = 0 : (tensor<1x4xi1>, tensor<1x4xi1>, tensor<1x4xi1>) -> tensor<3x4xi1>
    %21 = call @argmax(%20) : (tensor<3x4xi1>) -> tensor<4xi64>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %cst_5 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %c_6 = stablehlo.constant dense<1> : tensor<i64>
    %25 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %26 = stablehlo.compare LT, %21, %25, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %c_7 = stablehlo.constant dense<2> : tensor<i64>
    %27 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i64>) -> tensor<4xi64>
    %28 = stablehlo.compare LT, %21, %27, SIGNED : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %29 = stablehlo.select %28, %23, %24 : tensor<4xi1>, tensor<4xf32>
    %30 = stablehlo.select %26, %22, %29 : tensor<4xi1>, tensor<4xf32>
    return %30 : tensor<4xf32>
  }
  func.func private @remainder(%arg0: tensor<4xf32>, %arg1: tensor<i64>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.remainder %arg0, %1 : tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %4 = stablehlo.compare NE, %2, %3, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.compare LT, %2, %5, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.compare LT, %0, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<i1>) -> tensor<4xi1>
    %9 = stablehlo.compare NE, %6, %8, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %10 = stablehlo.and %9, %4 : tensor<4xi1>
    %11 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.add %2, %11 : tensor<4xf32>
    %13 = stablehlo.select %10, %12, %2 : tensor<4xi1>, tensor<4xf32>
    return %13 : tensor<4xf32>
  }
  func.func private @signbit(%arg0: tensor<4xf32>) -> tensor<4xi1> {
    %0 = stablehlo.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
    %c = stablehlo.constant dense<31> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %2 = stablehlo.shift_right_arithmetic %0, %1 : tensor<4xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %4 = stablehlo.compare NE, %2, %3, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %5 = stablehlo.convert %4 : tensor<4xi1>
    return %5 : tensor<4xi1>
  }
  func.func private @argmax(%arg0: tensor<3x4xi1>) -> tensor<4xi64> {
    %0 = stablehlo.iota dim = 0 : tensor<3x4xi64>
    %c = stablehlo.constant dense<false> : tensor<i1>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %1:2 = stablehlo.reduce(%arg0 init: %c), (%0 init: %c_0) across dimensions = [0] : (tensor<3x4xi1>, tensor<3x4xi64>, tensor<i1>, tensor<i64>) -> (tensor<4xi1>, tensor<4xi64>)
     reducer(%arg1: tensor<i1>, %arg3: tensor<i1>) (%arg2: tensor<i64>, %arg4: tensor<i64>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<i1>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i64>
      stablehlo.return %9, %10 : tensor<i1>, tensor<i64>
    }
    return %1#1 : tensor<4xi64>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<f32>, %arg2: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<4xi1>, tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}

// -----
// jax.scipy.special.zeta
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.zeta %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.acos
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.acos %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.acos complex64
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xcomplex<f32>>) -> (tensor<4xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = chlo.acos %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
}

// -----
// jax.lax.acosh
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.acosh %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.acosh complex64
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xcomplex<f32>>) -> (tensor<4xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = chlo.acosh %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
}

// -----
// jax.lax.asin
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.asin %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.asin complex64
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xcomplex<f32>>) -> (tensor<4xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = chlo.asin %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
}

// -----
// jax.lax.asinh
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.asinh %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.asinh complex64
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xcomplex<f32>>) -> (tensor<4xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = chlo.asinh %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
}

// -----
// jax.lax.atan
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.atan %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.atan complex64
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xcomplex<f32>>) -> (tensor<4xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = chlo.atan %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
}

// -----
// jax.lax.atanh
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.atanh %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.atanh complex64
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xcomplex<f32>>) -> (tensor<4xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = chlo.atanh %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
}

// -----
// jax.lax.cosh
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.cosh %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.cosh complex64
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xcomplex<f32>>) -> (tensor<4xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = chlo.cosh %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
}

// -----
// jax.lax.sinh
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.sinh %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.sinh complex64
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xcomplex<f32>>) -> (tensor<4xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = chlo.sinh %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
}

// -----
// jax.lax.erf
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.erf %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.erfc
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.erfc %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.erf_inv
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.erf_inv %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.lgamma
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.lgamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.digamma
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.digamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.polygamma
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.polygamma %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.zeta
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.zeta %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.bessel_i1e
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.bessel_i1e %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.top_k
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<2xf32> {jax.result_info = "result[0]"}, tensor<2xi32> {jax.result_info = "result[1]"}) {
    %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)
    return %values, %indices : tensor<2xf32>, tensor<2xi32>
  }
}

// -----
// jax.lax.nextafter
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.next_after %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.square
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = chlo.square %arg0 : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// jax.lax.square complex64
module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xcomplex<f32>>) -> (tensor<4xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = chlo.square %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    return %0 : tensor<4xcomplex<f32>>
  }
}
